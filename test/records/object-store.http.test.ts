import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { recordIndexRequestSchema } from '../../aggregates/record-filter/filter.schema.js';
import { cellsOf, heldNow, indexRecords, objectStoreCells, objectStoreSettled, objectStoreStats } from '../../read-models/record-index/index.js';
import { loadRecordObject } from '../../read-models/records.queries.js';
import { catalogOf } from '../../src/records/records.reads.js';
import { twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, call } from './records-fixtures.js';

// The in-process index's memory bound (INDEX_STORE_CELLS, ADR 0006): an object too large to hold
// is answered by SQL, exactly; a small one is held; each company's columns are its own.
let t: TestApp;
let a: TestTenant;
let b: TestTenant;
const CELLS = 120;

beforeAll(async () => {
  t = await startTestApp({ INDEX_STORE_CELLS: String(CELLS) });
  [a, b] = await twoTenants(t.app);
});
afterAll(async () => t.close());

const request = { filters: [{ key: 'title', operator: 'contains', value: 'ru' }], sort: [{ key: 'title', direction: 'desc' }], limit: 4 };

async function answers(who: TestTenant, name: string) {
  const res = await call(t.app, who, 'POST', `/api/v2/${name}/index`, { ...request, page: 1 });
  expect(res.status).toBe(200);
  const object = (await loadRecordObject(t.platform.db, who.companyUuid, name))!;
  const compiled = compileIndexRequest({ properties: catalogOf([object]) }, recordIndexRequestSchema.parse({ ...request, page: 1 }));
  const sql = await indexRecords(t.platform.db, { tenant: who.companyUuid, objectUuid: object.objectUuid }, compiled);
  return { got: { total: res.body.total, uuids: res.body.data.map((r: { uuid: string }) => r.uuid) }, sql: { total: sql.total, uuids: sql.uuids }, object };
}

describe('the in-process index within its memory bound', () => {
  it('answers an object too large to hold by SQL, and holds a small one', async () => {
    await anObjectWith(t.app, a, { title: {} }, 'big');
    await anObjectWith(t.app, a, { title: {} }, 'small');
    // 40 records of 3 columns (createdAt, deletedAt, title) and a uuid: 160 values, over 120.
    for (let i = 0; i < 40; i++) await aRecord(t.app, a, 'big', { title: `${i % 3 ? 'run' : 'walk'} ${String(i).padStart(2, '0')}` });
    for (let i = 0; i < 9; i++) await aRecord(t.app, a, 'small', { title: `${i % 3 ? 'run' : 'walk'} ${i}` });

    const big = await answers(a, 'big');
    expect(big.got).toEqual(big.sql);
    expect(big.got.total).toBe(26);
    expect(big.got.uuids).toHaveLength(4);
    await objectStoreSettled();
    expect(heldNow(a.companyUuid, big.object.objectUuid)).toBeNull();

    const before = { ...objectStoreStats };
    // The first request is answered by SQL while the object is read and prepared in the background (ADR 0019).
    const first = await answers(a, 'small');
    expect(first.got).toEqual(first.sql);
    expect(objectStoreStats.answered - before.answered).toBe(0);
    await objectStoreSettled();
    expect(objectStoreStats.read - before.read).toBe(1);
    // Then by the store: read once, no refresh, no SQL for the matches.
    const small = await answers(a, 'small');
    expect(small.got).toEqual(small.sql);
    expect(objectStoreStats.answered - before.answered).toBe(1);
    const again = await answers(a, 'small');
    expect(again.got).toEqual(small.sql);
    expect(objectStoreStats.answered - before.answered).toBe(2);
    expect(objectStoreStats.read - before.read).toBe(1);
    expect(objectStoreStats.refreshed - before.refreshed).toBe(0);
    // A write: the next answer brings the columns up to date from the log (one refresh), not a read.
    const added = (await aRecord(t.app, a, 'small', { title: 'zru' })).uuid;
    const after = await answers(a, 'small');
    expect(after.got).toEqual(after.sql);
    expect(after.got.total).toBe(7);
    expect(objectStoreStats.refreshed - before.refreshed).toBe(1);
    expect(objectStoreStats.read - before.read).toBe(1);
    expect(objectStoreStats.answered - before.answered).toBe(3);
    const page0 = await call(t.app, a, 'POST', '/api/v2/small/index', request);
    expect(page0.body.data[0].uuid).toBe(added);
    expect(small.got.total).toBe(6);
    await objectStoreSettled();
    const held = heldNow(a.companyUuid, small.object.objectUuid);
    expect(held?.columns.rows.size).toBe(10);
    // What the scans made (a row order, folded text, gram postings, row bitsets) is counted in the
    // bound too, not only the columns read: 10 rows of 3 columns and a uuid are 40 cells.
    expect(objectStoreCells()).toBe(cellsOf(held!.columns));
    expect(objectStoreCells()).toBeGreaterThan(40 + 10 * 2);
  });

  it('keeps each company apart: the same object name holds only its own company’s records', async () => {
    await anObjectWith(t.app, b, { title: {} }, 'small');
    const mine = (await aRecord(t.app, b, 'small', { title: 'brunt' })).uuid;
    const res = await call(t.app, b, 'POST', '/api/v2/small/index', request);
    expect({ total: res.body.total, uuids: res.body.data.map((r: { uuid: string }) => r.uuid) }).toEqual({ total: 1, uuids: [mine] });
    const again = await answers(a, 'small');
    expect(again.got).toEqual(again.sql);
    expect(again.got.uuids).not.toContain(mine);
  });
});
