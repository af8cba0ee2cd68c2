import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_KEYS_LISTED } from '../../read-models/batch-keys.js';
import { recordRowsBatch } from '../../read-models/records.queries.js';
import { recordViewsBatch } from '../../read-models/record-views.queries.js';
import { twoTenants, type TestTenant } from '../support/actors.js';
import { onPostgres } from '../support/test-db.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith } from './records-fixtures.js';

// Reads by keys (records_rows_batch: what a write reads first; records_views_batch: a get): a
// VALUES list of the batch's size up to BATCH_KEYS_LISTED keys, unnest beyond; each key answered
// by its own tenant's row, in key order; on PostgreSQL each size's statement keeps its generic plan.
let t: TestApp;
let a: TestTenant;
let b: TestTenant;
const recordsA: string[] = [];
const recordsB: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  [a, b] = await twoTenants(t.app);
  const objA = await anObjectWith(t.app, a, { title: { type: 'string', format: 'text' } }, 'widget');
  const objB = await anObjectWith(t.app, b, { title: { type: 'string', format: 'text' } }, 'widget');
  for (let i = 0; i < 10; i++) {
    recordsA.push((await aRecord(t.app, a, objA.name, { title: `a-${i}` })).uuid);
    recordsB.push((await aRecord(t.app, b, objB.name, { title: `b-${i}` })).uuid);
  }
});
afterAll(async () => t.close());

describe('reads by keys', () => {
  it('answers each key with its own tenant’s row, null for another’s or none, in key order, at every batch size', async () => {
    const asks = [
      ...recordsA.map((uuid, i) => ({ tenant: a.companyUuid, uuid, want: `a-${i}` })),
      ...recordsB.map((uuid) => ({ tenant: a.companyUuid, uuid, want: null })),
      ...recordsB.map((uuid, i) => ({ tenant: b.companyUuid, uuid, want: `b-${i}` })),
      { tenant: b.companyUuid, uuid: '00000000-0000-4000-8000-000000000000', want: null },
    ];
    for (const size of [1, 2, 3, BATCH_KEYS_LISTED - 1, BATCH_KEYS_LISTED, BATCH_KEYS_LISTED + 1, asks.length]) {
      for (let start = 0; start + size <= asks.length; start += Math.max(1, Math.floor(size / 2) + 3)) {
        const keys = asks.slice(start, start + size);
        const rows = await recordRowsBatch(t.platform.db, keys);
        expect(rows.map((r) => (r ? r.vals.title : null))).toEqual(keys.map((k) => k.want));
        rows.forEach((r, i) => r && expect([r.uuid, r.object_names]).toEqual([keys[i]!.uuid, ['widget']]));
        for (const links of [false, true]) {
          const views = await recordViewsBatch(t.platform.db, keys, { links });
          expect(views.map((r) => (r ? r.vals.title : null))).toEqual(keys.map((k) => k.want));
          views.forEach((r, i) => r && expect(r.uuid).toBe(keys[i]!.uuid));
        }
      }
    }
  });

  it.skipIf(!onPostgres)('keeps its generic plan for a batch of a few keys (PostgreSQL plans it once, not per execution)', async () => {
    // Rows of another tenant, so that the table is large enough for a plan's estimated row count to matter.
    await t.platform.db.query(
      `insert into records (tenant, object_uuid, uuid, is_primary, primary_object_uuid, object_name, vals, search, created_at, updated_at, revision)
       select 'filler', gen_random_uuid(), gen_random_uuid(), true, gen_random_uuid(), 'filler', '{}', ''::tsvector, 0, 0, 0 from generate_series(1, 5000)`,
    );
    await t.platform.db.query('analyze records');
    const plans = await t.platform.db.transaction(async (tx) => {
      for (let i = 0; i < 12; i++) await recordRowsBatch(tx, [{ tenant: a.companyUuid, uuid: recordsA[i % recordsA.length]! }]);
      for (let i = 0; i < 12; i++) await recordRowsBatch(tx, [{ tenant: a.companyUuid, uuid: recordsA[0]! }, { tenant: b.companyUuid, uuid: recordsB[0]! }]);
      return tx.query<{ name: string; generic_plans: number; custom_plans: number }>(
        `select name, generic_plans::int, custom_plans::int from pg_prepared_statements where name like 'records_%_batch%' order by name`,
      );
    });
    // At most five custom plans (the connection may have run the statements before), then the
    // generic one for every later execution of each size.
    const bySize = new Map(plans.map((p) => [p.name, p]));
    for (const name of ['records_rows_batch_1', 'records_rows_batch_2']) {
      expect(bySize.get(name)?.custom_plans).toBeLessThanOrEqual(5);
      expect(bySize.get(name)?.generic_plans).toBeGreaterThanOrEqual(7);
    }
  });
});
