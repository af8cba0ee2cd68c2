import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { onPostgres } from '../support/test-db.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holdNewPivotKey } from './hidden-pivot-key.js';
import { aRecord, anObjectWith, call, index, type TestObject } from './records-fixtures.js';

// On PostgreSQL an update's record rows are written by its append statement (the records
// projection's `withAppend`), from the event and the state its writer decided on: no lock, no
// transaction. What a transaction could repair afterwards must fail that statement instead, and
// the update then commits the usual way. On PGlite the same requests take the transaction.
let t: TestApp;
let admin: TestTenant;
let deals: TestObject;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
  deals = await anObjectWith(t.app, admin, { name: {}, code: { unique: true }, score: { type: 'number', format: 'number' }, tags: { format: 'multi-select', options: ['a', 'b', 'c'].map((v) => ({ value: v, label: v })) } }, 'deal');
});
afterAll(async () => t.close());

const total = async (filters: unknown[], query?: string) => (await index(t.app, admin, 'deal', { filters, ...(query ? { query } : {}) })).body.total as number;
const put = (uuid: string, properties: Record<string, unknown>) => call(t.app, admin, 'PUT', `/api/v2/deal/${uuid}`, { properties });

describe('updates written by their append statement', () => {
  it('move every pivot, the free text, the unique values and the revision of many records at once', async () => {
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => aRecord(t.app, admin, 'deal', { name: `before ${i}`, code: `old-${i}`, score: i, tags: ['a'] })));
    const done = await Promise.all(made.map((r, i) => put(r.uuid, { name: `after ${i}`, code: `new-${i}`, score: 100 + i, tags: i % 2 ? ['b', 'c'] : null })));
    expect(done.map((r) => r.status)).toEqual(made.map(() => 200));
    expect(await total([{ key: 'name', operator: 'startsWith', value: 'before' }])).toBe(0);
    expect(await total([{ key: 'name', operator: 'contains', value: 'fter' }])).toBe(12);
    expect(await total([{ key: 'score', operator: 'gte', value: 100 }])).toBe(12);
    expect(await total([{ key: 'score', operator: 'lt', value: 100 }])).toBe(0);
    expect(await total([{ key: 'tags', operator: 'equals', value: 'a' }])).toBe(0);
    expect(await total([{ key: 'tags', operator: 'equals', value: 'c' }])).toBe(6);
    expect(await total([{ key: 'tags', operator: 'isnull' }])).toBe(6);
    expect(await total([], 'before')).toBe(0);
    expect(await total([], 'after')).toBe(12);
    const one = (await call(t.app, admin, 'GET', `/api/v2/deal/${made[3]!.uuid}`)).body.data;
    expect(one).toMatchObject({ revision: 1, properties: { name: 'after 3', code: 'new-3', score: 103, tags: ['b', 'c'] } });
    // The old unique values are free again, the new ones are taken.
    expect((await call(t.app, admin, 'POST', '/api/v2/deal', { properties: { name: 'reuses', code: 'old-3' } })).status).toBe(201);
    const taken = await put(made[4]!.uuid, { code: 'new-5' });
    expect(taken.status).toBe(400);
    expect(taken.body.errors[0].correctionSuggestion).toMatch(/another value for code/);
  });

  it('give a taken unique value its own error and commit the others of the group, with nothing half-written', async () => {
    const made = await Promise.all(['x', 'y', 'z', 'w'].map((n) => aRecord(t.app, admin, 'deal', { name: `group ${n}`, code: `g-${n}` })));
    const results = await Promise.all(made.map((r, i) => put(r.uuid, { name: `regrouped ${i}`, code: i < 2 ? 'contested' : `g2-${i}` })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 400]);
    const loser = made[results.findIndex((r) => r.status === 400)]!;
    const view = (await call(t.app, admin, 'GET', `/api/v2/deal/${loser.uuid}`)).body.data;
    // The refused update changed nothing: not its name, not its revision, not its pivot.
    expect(view).toMatchObject({ revision: 0, properties: { name: expect.stringMatching(/^group /) } });
    expect(await total([{ key: 'name', operator: 'startsWith', value: 'regrouped' }])).toBe(3);
    expect(await total([{ key: 'code', operator: 'equals', value: 'contested' }])).toBe(1);
    const history = await call(t.app, admin, 'GET', `/api/v2/records/${loser.uuid}/history`);
    expect(history.body.data.map((e: { type: string }) => e.type)).toEqual(['RecordCreated']);
  });

  it('keep one event per acknowledged update when writers race on one record', async () => {
    const r = await aRecord(t.app, admin, 'deal', { name: 'raced', score: 0 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => put(r.uuid, { score: i + 1 })));
    expect(results.every((x) => x.status === 200)).toBe(true);
    const history = (await call(t.app, admin, 'GET', `/api/v2/records/${r.uuid}/history?limit=100`)).body.data as { revision: number; changes: { score?: { after: number } } }[];
    const final = (await call(t.app, admin, 'GET', `/api/v2/deal/${r.uuid}`)).body.data;
    expect(final.revision).toBe(history[0]!.revision);
    expect(final.properties.score).toBe(history[0]!.changes.score!.after);
    // The pivot holds the final value only.
    expect(await total([{ key: 'name', operator: 'equals', value: 'raced' }, { key: 'score', operator: 'equals', value: final.properties.score }])).toBe(1);
    expect(await total([{ key: 'name', operator: 'equals', value: 'raced' }, { key: 'score', operator: 'notEquals', value: final.properties.score }])).toBe(0);
  });

  it.skipIf(!onPostgres)('fall back to the transaction when a row of the record is not at the revision decided on', async () => {
    const tags = await anObjectWith(t.app, admin, { name: {} });
    const r = await aRecord(t.app, admin, 'deal', { name: 'two rows' });
    expect((await call(t.app, admin, 'PUT', `/api/v2/records/${r.uuid}/objects/${tags.name}`)).status).toBe(200);
    // A read model out of step with the stream (it never is, short of a fault): the extension's
    // row claims a later revision than the record's.
    await t.platform.db.query('update records set revision = revision + 100 where tenant = $1 and uuid = $2 and not is_primary', [admin.companyUuid, r.uuid]);
    expect((await put(r.uuid, { name: 'moved on both' })).status).toBe(200);
    const found = async (objectName: string) =>
      (await index(t.app, admin, objectName, { filters: [{ key: 'name', operator: 'equals', value: 'moved on both' }] })).body.total as number;
    expect(await found('deal')).toBe(1);
    expect(await found(tags.name)).toBe(1);
  });

  it.skipIf(!onPostgres)('fall back to the transaction when a pivot key another transaction made is hidden from the statement', async () => {
    expect((await call(t.app, admin, 'POST', `/api/v2/objects/${deals.uuid}/properties`, { name: 'region', label: 'Region', type: 'string', format: 'text' })).status).toBe(201);
    const r = await aRecord(t.app, admin, 'deal', { name: 'gets a region' });
    const key = await holdNewPivotKey(t, admin.companyUuid, 'deal', 'region');
    const update = put(r.uuid, { region: 'south' });
    await new Promise((res) => setTimeout(res, 300));
    await key.release();
    expect((await update).status).toBe(200);
    expect(await total([{ key: 'region', operator: 'equals', value: 'south' }])).toBe(1);
    expect(await total([{ key: 'region', operator: 'contains', value: 'out' }])).toBe(1);
    const history = await call(t.app, admin, 'GET', `/api/v2/records/${r.uuid}/history`);
    expect(history.body.data.map((e: { type: string }) => e.type)).toEqual(['RecordUpdated', 'RecordCreated']);
  });
});
