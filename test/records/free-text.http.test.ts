import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, call, index, type TestObject } from './records-fixtures.js';

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
