import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { touchesText } from '../../aggregates/record/record.index-doc.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, call, index } from './records-fixtures.js';

// An update that changes no text value keeps the record's `search` as it is (no tsvector made, no
// GIN entry written: ADR 0013); one that changes text writes it again. On PostgreSQL the update's
// append statement writes the row, on PGlite the projection's transaction: both are run here.
let t: TestApp;
let admin: TestTenant;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
  await anObjectWith(t.app, admin, {
    name: {}, body: { format: 'textarea' }, score: { type: 'number', format: 'number' }, hot: { type: 'boolean', format: 'checkbox' },
    tags: { format: 'multi-select', options: ['alpha', 'beta'].map((v) => ({ value: v, label: v })) },
  }, 'lead');
});
afterAll(async () => t.close());

const found = async (query: string) => ((await index(t.app, admin, 'lead', { query })).body.data as { uuid: string }[]).map((r) => r.uuid);
const put = async (uuid: string, properties: Record<string, unknown>) => expect((await call(t.app, admin, 'PUT', `/api/v2/lead/${uuid}`, { properties })).status).toBe(200);
const search = async (uuid: string) => (await t.platform.db.query<{ search: string }>('select search::text as search from records where uuid = $1', [uuid]))[0]!.search;
const history = async (uuid: string) => (await call(t.app, admin, 'GET', `/api/v2/records/${uuid}/history`)).body.data as { type: string; revision: number; changes: unknown }[];

describe('the free-text document on update', () => {
  it('moves with a text update: the new word is found, the old one gone', async () => {
    const rec = await aRecord(t.app, admin, 'lead', { name: 'Tovari Mills', body: 'first quarelo note', score: 1 });
    expect(await found('quarelo')).toEqual([rec.uuid]);
    await put(rec.uuid, { body: 'second vemuto note' });
    expect(await found('vemuto')).toEqual([rec.uuid]);
    expect(await found('quarelo')).toEqual([]);
    await put(rec.uuid, { body: null });
    expect(await found('vemuto')).toEqual([]);
    expect(await found('tovari')).toEqual([rec.uuid]);
  });

  it('stays as it was after a number-only update, which the history records as any other', async () => {
    const rec = await aRecord(t.app, admin, 'lead', { name: 'Relani Works', body: 'sopraxi text', score: 1, hot: false, tags: ['alpha'] });
    const before = await search(rec.uuid);
    await put(rec.uuid, { score: 2, hot: true });
    await put(rec.uuid, { score: null });
    expect(await search(rec.uuid)).toBe(before);
    expect(await found('sopraxi')).toEqual([rec.uuid]);
    expect(await found('relani')).toEqual([rec.uuid]);
    expect((await index(t.app, admin, 'lead', { filters: [{ key: 'hot', operator: 'equals', value: true }], query: 'relani' })).body.total).toBe(1);
    const entries = await history(rec.uuid);
    expect(entries.map((e) => [e.type, e.revision])).toEqual([['RecordUpdated', 2], ['RecordUpdated', 1], ['RecordCreated', 0]]);
    expect(entries[0]!.changes).toEqual({ score: { before: 2, after: null } });
    expect(entries[1]!.changes).toEqual({ score: { before: 1, after: 2 }, hot: { before: false, after: true } });
    // A list of strings is text: its update writes the document again.
    await put(rec.uuid, { tags: ['beta'] });
    expect(await found('beta')).toEqual([rec.uuid]);
    expect(await found('alpha')).toEqual([]);
  });
});

describe('touchesText', () => {
  it('is true when a text value or a list of strings is set or removed, false for numbers, booleans and dates of no text', () => {
    expect(touchesText({ score: { before: 1, after: 2 }, hot: { before: null, after: true } })).toBe(false);
    expect(touchesText({ score: { before: 1, after: 2 }, name: { before: 'a', after: 'b' } })).toBe(true);
    expect(touchesText({ name: { before: 'a', after: null } })).toBe(true);
    expect(touchesText({ tags: { before: null, after: ['x'] } })).toBe(true);
    expect(touchesText({ json: { before: null, after: { a: 'x' } } })).toBe(false);
  });
});
