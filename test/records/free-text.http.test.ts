import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRelation } from '../schema/schema-fixtures.js';
import { aRecord, anObjectWith, call, data, index, type TestObject } from './records-fixtures.js';
import { objectStoreSettled, objectStoreStats } from '../../read-models/record-index/index.js';

// Free text (`query` of an index request): ranked, websearch syntax, scoped to the object whose
// index is asked (the search vector's lexemes carry the object's key: migration 0006).
let t: TestApp;
let admin: TestTenant;
let deals: TestObject;
let leads: TestObject;
let notes: TestObject;

const names = async (objectName: string, query: string) => {
  const res = await index(t.app, admin, objectName, { query });
  expect(res.status).toBe(200);
  return { total: res.body.total as number, names: (res.body.data as { properties: { name: string } }[]).map((r) => r.properties.name) };
};

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
  deals = await anObjectWith(t.app, admin, { name: {}, body: { format: 'textarea' } });
  leads = await anObjectWith(t.app, admin, { name: {}, stage: {} });
  notes = await anObjectWith(t.app, admin, { name: {} });
  await aRecord(t.app, admin, deals.name, { name: 'Kalomi Holdings', body: 'kalomi kalomi renewal' });
  await aRecord(t.app, admin, deals.name, { name: 'Rute Labs', body: 'a kalomi partner' });
  await aRecord(t.app, admin, deals.name, { name: "O'Brien Foods", body: 'rute labs supplier' });
  await aRecord(t.app, admin, notes.name, { name: 'kalomi in another object' });
});
afterAll(async () => t.close());

describe('free text', () => {
  it('ranks the matches of a term, within the object asked only', async () => {
    const found = await names(deals.name, 'kalomi');
    expect(found.total).toBe(2);
    expect(found.names).toEqual(['Kalomi Holdings', 'Rute Labs']);
    expect(await names(notes.name, 'kalomi')).toEqual({ total: 1, names: ['kalomi in another object'] });
    expect((await names(leads.name, 'kalomi')).total).toBe(0);
  });

  it('takes phrases, negation, OR and quotes inside words', async () => {
    expect((await names(deals.name, '"rute labs"')).names.sort()).toEqual(["O'Brien Foods", 'Rute Labs']);
    expect((await names(deals.name, 'kalomi -partner')).names).toEqual(['Kalomi Holdings']);
    expect((await names(deals.name, 'renewal or supplier')).names.sort()).toEqual(['Kalomi Holdings', "O'Brien Foods"]);
    expect((await names(deals.name, "o'brien")).names).toEqual(["O'Brien Foods"]);
    expect((await names(deals.name, '!!!')).total).toBe(0);
  });

  it('finds a record in every object it extends, with its values after an update', async () => {
    const rec = await aRecord(t.app, admin, deals.name, { name: 'Suralo Works', body: 'first words' }, { extends: [leads.name] });
    expect((await names(leads.name, 'suralo')).names).toEqual(['Suralo Works']);
    expect((await call(t.app, admin, 'PUT', `/api/v2/${deals.name}/${rec.uuid}`, { properties: { name: 'Vonepi Works' } })).status).toBe(200);
    for (const object of [deals, leads]) {
      expect((await names(object.name, 'vonepi')).names).toEqual(['Vonepi Works']);
      expect((await names(object.name, 'suralo')).total).toBe(0);
    }
  });
});

describe('a free-text page read with its records (one statement)', () => {
  it('answers each record as its own read does: relations, teams, extended objects, formats, pages', async () => {
    const linked = await aRelation(t.app, admin, deals.uuid, notes.uuid, { name: 'about', direction: 'BIDIRECTIONAL', toName: 'deal' });
    const [holdings] = (await index(t.app, admin, deals.name, { query: 'pemaro holdings' })).body.data;
    expect(holdings).toBeUndefined();
    const a = await aRecord(t.app, admin, deals.name, { name: 'Pemaro Holdings', body: 'pemaro pemaro' });
    const b = await aRecord(t.app, admin, deals.name, { name: 'Pemaro Labs', body: 'extended' }, { extends: [leads.name] });
    const note = await aRecord(t.app, admin, notes.name, { name: 'pemaro note' });
    await data(t.app, admin, 'PUT', `/api/v2/relations/${linked.uuid}/connection/${a.uuid}/${note.uuid}`, { edgeProperties: {} });
    const team = await data(t.app, admin, 'POST', '/api/v2/teams', { name: 'Pemaro team' });
    await data(t.app, admin, 'PUT', `/api/v2/records/${b.uuid}/teams/${team.uuid}`);
    const read = async (objectName: string, uuid: string, format: string) => data(t.app, admin, 'GET', `/api/v2/${objectName}/${uuid}?recordReturnFormat=${format}`);
    for (const [i, format] of ['USER_FRIENDLY', 'EXPANDED', 'LEGACY'].entries()) {
      // A query not asked before: read by the statement, not from a kept result.
      const page = await call(t.app, admin, 'POST', `/api/v2/${deals.name}/index?recordReturnFormat=${format}`, { query: `pemaro -nowhere${i}` });
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(2);
      const uuids: string[] = page.body.data.map((r: { uuid: string }) => r.uuid);
      expect([...uuids].sort()).toEqual([a.uuid, b.uuid].sort());
      expect(page.body.data).toEqual(await Promise.all(uuids.map((u) => read(deals.name, u, format))));
    }
    expect((await read(deals.name, a.uuid, 'USER_FRIENDLY')).relations).toHaveLength(1);
    expect((await read(deals.name, b.uuid, 'USER_FRIENDLY')).teams).toEqual([{ uuid: team.uuid, name: 'Pemaro team' }]);
    // Through the extended object: the record's own objects and definitions.
    const viaLeads = await index(t.app, admin, leads.name, { query: 'pemaro extended' });
    expect(viaLeads.body.data).toEqual([await read(leads.name, b.uuid, 'USER_FRIENDLY')]);
    // A later page, and a page past the end.
    const second = await index(t.app, admin, deals.name, { query: 'pemaro', limit: 1, page: 1 });
    expect({ total: second.body.total, data: second.body.data }).toEqual({ total: 2, data: [await read(deals.name, b.uuid, 'USER_FRIENDLY')] });
    const past = await index(t.app, admin, deals.name, { query: 'pemaro', limit: 1, page: 5 });
    expect({ total: past.body.total, data: past.body.data }).toEqual({ total: 2, data: [] });
    // `show` without relations: no links read, as the record's read with the same fields.
    const shown = await index(t.app, admin, deals.name, { query: 'pemaro holdings', show: ['name'] });
    expect(shown.body.data).toEqual([{ ...(await data(t.app, admin, 'GET', `/api/v2/${deals.name}/${a.uuid}?fields=name`)), relations: [] }]);
  });
});

describe('free text answered by the in-process index (ADR 0016)', () => {
  it('shows an update, an archive and a restore at the next list', async () => {
    const stage = await anObjectWith(t.app, admin, { name: {} });
    const a = await aRecord(t.app, admin, stage.name, { name: 'Tovari one' });
    await aRecord(t.app, admin, stage.name, { name: 'Tovari tovari two' });
    // The first list is answered by SQL while the object is read and prepared in the background (ADR 0019).
    expect(await names(stage.name, 'tovari')).toEqual({ total: 2, names: ['Tovari tovari two', 'Tovari one'] });
    await objectStoreSettled();
    const answered = objectStoreStats.answered;
    expect(await names(stage.name, 'tovari')).toEqual({ total: 2, names: ['Tovari tovari two', 'Tovari one'] });
    expect(objectStoreStats.answered, 'held columns answered').toBe(answered + 1);
    expect((await call(t.app, admin, 'PUT', `/api/v2/records/${a.uuid}`, { properties: { name: 'Pelumo one' } })).status).toBe(200);
    expect(await names(stage.name, 'tovari')).toEqual({ total: 1, names: ['Tovari tovari two'] });
    expect(await names(stage.name, 'pelumo one')).toEqual({ total: 1, names: ['Pelumo one'] });
    expect((await call(t.app, admin, 'DELETE', `/api/v2/records/${a.uuid}`)).status).toBe(200);
    expect((await names(stage.name, 'pelumo')).total).toBe(0);
    expect((await index(t.app, admin, stage.name, { query: 'pelumo', archived: 'only' })).body.total).toBe(1);
    expect((await call(t.app, admin, 'POST', `/api/v2/records/${a.uuid}/restore`, {})).status).toBe(200);
    expect(await names(stage.name, 'pelumo')).toEqual({ total: 1, names: ['Pelumo one'] });
    expect(objectStoreStats.answered, 'every list above from held columns').toBe(answered + 6);
  });
});
