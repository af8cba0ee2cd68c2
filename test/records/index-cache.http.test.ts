import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { recordIndexRequestSchema } from '../../aggregates/record-filter/filter.schema.js';
import { indexRecords } from '../../read-models/record-index/record-index.queries.js';
import { catalogOf } from '../../src/records/records.reads.js';
import { loadRecordObject } from '../../read-models/records.queries.js';
import { twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, call, type TestObject } from './records-fixtures.js';

// Filtered index results are kept per process, keyed by the object's change count
// (src/records/index-cache.ts): every record write must show in the next answer.
let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let objA: TestObject;

const options = ['open', 'closed'].map((v) => ({ value: v, label: v }));
const request = {
  filters: [
    { key: 'title', operator: 'contains', value: 'run' },
    { key: 'status', operator: 'equals', value: 'open' },
  ],
  sort: [{ key: 'title', direction: 'asc' }],
  limit: 3,
};

beforeAll(async () => {
  t = await startTestApp();
  [a, b] = await twoTenants(t.app);
  objA = await anObjectWith(t.app, a, { title: {}, status: { format: 'select', options } }, 'ticket');
  await anObjectWith(t.app, b, { title: {}, status: { format: 'select', options } }, 'ticket');
});
afterAll(async () => t.close());

const ask = async (who: TestTenant, page = 1) => {
  const res = await call(t.app, who, 'POST', '/api/v2/ticket/index', { ...request, page });
  expect(res.status).toBe(200);
  return { total: res.body.total as number, uuids: res.body.data.map((r: { uuid: string }) => r.uuid) as string[] };
};

/** The same request read from the database without the cache. */
async function uncached(who: TestTenant, page = 1) {
  const object = (await loadRecordObject(t.platform.db, who.companyUuid, 'ticket'))!;
  const compiled = compileIndexRequest({ properties: catalogOf([object]) }, recordIndexRequestSchema.parse({ ...request, page }));
  const { total, uuids } = await indexRecords(t.platform.db, { tenant: who.companyUuid, objectUuid: object.objectUuid }, compiled);
  return { total, uuids };
}

async function expectFresh(who: TestTenant) {
  for (const page of [1, 2]) {
    const want = await uncached(who, page);
    expect(await ask(who, page)).toEqual(want);
    expect(await ask(who, page)).toEqual(want); // asked again: from the cache, still exact
  }
}

describe('the index result cache', () => {
  it('shows every kind of record write in the next answer', async () => {
    await expectFresh(a);
    const r1 = (await aRecord(t.app, a, 'ticket', { title: 'rune one', status: 'open' })).uuid;
    await expectFresh(a);
    const r2 = (await aRecord(t.app, a, 'ticket', { title: 'brunch', status: 'closed' })).uuid;
    await aRecord(t.app, a, 'ticket', { title: 'prune', status: 'open' });
    await aRecord(t.app, a, 'ticket', { title: 'truncate', status: 'open' });
    await aRecord(t.app, a, 'ticket', { title: 'rung', status: 'open' });
    await expectFresh(a);
    expect((await ask(a)).total).toBe(4);

    // An update that makes a record match, one that makes it stop matching.
    expect((await call(t.app, a, 'PUT', `/api/v2/ticket/${r2}`, { properties: { status: 'open' } })).status).toBe(200);
    await expectFresh(a);
    expect((await ask(a)).total).toBe(5);
    expect((await call(t.app, a, 'PUT', `/api/v2/ticket/${r1}`, { properties: { title: 'one' } })).status).toBe(200);
    await expectFresh(a);
    expect((await ask(a)).total).toBe(4);

    // Archive and restore.
    expect((await call(t.app, a, 'DELETE', `/api/v2/ticket/${r2}`)).status).toBe(200);
    await expectFresh(a);
    expect((await ask(a)).uuids).not.toContain(r2);
    expect((await call(t.app, a, 'POST', `/api/v2/ticket/${r2}/restore`)).status).toBe(200);
    await expectFresh(a);
    expect((await ask(a)).uuids).toContain(r2);
  });

  it('keeps each company’s answer to the same request apart', async () => {
    const mine = (await aRecord(t.app, b, 'ticket', { title: 'runway', status: 'open' })).uuid;
    const answerA = await ask(a);
    const answerB = await ask(b);
    expect(answerB).toEqual({ total: 1, uuids: [mine] });
    expect(answerA.uuids).not.toContain(mine);
    expect(await ask(a)).toEqual(answerA);
    // Kept pages asked together: each company still gets its own.
    const together = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i % 2 === 0 ? a : b, 1 + (i % 4 < 2 ? 0 : 1))));
    const wanted = await Promise.all(Array.from({ length: 12 }, (_, i) => uncached(i % 2 === 0 ? a : b, 1 + (i % 4 < 2 ? 0 : 1))));
    expect(together).toEqual(wanted);
  });

  it('answers from the cache while the object has seen no change, and reads again after one', async () => {
    const before = await ask(a);
    // Behind the projection's back (no change counted): the kept answer still stands, which is
    // what shows it is kept. A real write counts a change and the next answer reads again.
    await t.platform.db.query('update records set deleted_at = 1 where tenant = $1 and object_uuid = $2 and uuid = $3', [a.companyUuid, objA.uuid, before.uuids[0]]);
    expect(await ask(a)).toEqual(before);
    await aRecord(t.app, a, 'ticket', { title: 'nothing to see', status: 'open' });
    expect(await ask(a)).toEqual(await uncached(a));
    expect((await ask(a)).uuids).not.toContain(before.uuids[0]);
  });
});
