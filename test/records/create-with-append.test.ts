import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { onPostgres } from '../support/test-db.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holdNewPivotKey } from './hidden-pivot-key.js';
import { aRecord, anObjectWith, call, index, type TestObject } from './records-fixtures.js';

// On PostgreSQL a create's record rows are written by its append statement (the records
// projection's `withAppend`): one statement, no transaction around it. What a transaction could
// repair afterwards must fail that statement instead, and the create then commits the usual way.
let t: TestApp;
let admin: TestTenant;
let deals: TestObject;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
  deals = await anObjectWith(t.app, admin, { name: {}, code: { unique: true } }, 'deal');
});
afterAll(async () => t.close());

const total = async (filters: unknown[]) => (await index(t.app, admin, 'deal', { filters })).body.total as number;

describe('creates written by their append statement', () => {
  it('write the record, its pivot, its count and its event together; many at once too', async () => {
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => aRecord(t.app, admin, 'deal', { name: `bulk ${i}`, code: `c-${i}` })));
    expect(await total([{ key: 'name', operator: 'startsWith', value: 'bulk' }])).toBe(12);
    expect((await index(t.app, admin, 'deal', {})).body.total).toBe(12);
    const history = await call(t.app, admin, 'GET', `/api/v2/records/${made[0]!.uuid}/history`);
    expect(history.body.data.map((e: { type: string }) => e.type)).toEqual(['RecordCreated']);
  });

  it('give a taken unique value its own error, and commit the others of the group', async () => {
    const results = await Promise.all(
      ['dup', 'dup', 'fresh-1', 'fresh-2'].map((code, i) => call(t.app, admin, 'POST', '/api/v2/deal', { properties: { name: `u ${i}`, code } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 400]);
    expect(await total([{ key: 'code', operator: 'in', value: ['dup', 'fresh-1', 'fresh-2'] }])).toBe(3);
  });

  it.skipIf(!onPostgres)('fall back to the transaction when a pivot key another transaction made is hidden from the statement', async () => {
    // A property no record has used yet: its pivot key does not exist.
    expect((await call(t.app, admin, 'POST', `/api/v2/objects/${deals.uuid}/properties`, { name: 'region', label: 'Region', type: 'string', format: 'text' })).status).toBe(201);
    const key = await holdNewPivotKey(t, admin.companyUuid, 'deal', 'region');
    const create = call(t.app, admin, 'POST', '/api/v2/deal', { properties: { name: 'hidden key', region: 'north' } });
    await new Promise((r) => setTimeout(r, 300));
    await key.release();
    expect((await create).status).toBe(201);
    // The record is found through the pivot of `region`: nothing was left out.
    expect(await total([{ key: 'region', operator: 'equals', value: 'north' }])).toBe(1);
    expect(await total([{ key: 'region', operator: 'contains', value: 'nor' }])).toBe(1);
  });
});
