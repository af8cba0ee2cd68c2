import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ObjectRows } from '../../read-models/record-index/object-rows.queries.js';
import type { Sql } from '../../ports/sql.js';

// The in-process index's first read of an object (src/records/object-store.ts), with the database
// replaced by a synthetic object: a million rows are taken without a spread of them as arguments
// (which overflows the call stack), and concurrent first reads of one object share one read.
const rows = vi.hoisted(() => ({ n: 0, reads: 0, counts: 0 }));

vi.mock('../../read-models/record-index/object-rows.queries.js', () => ({
  objectRows: async (_sql: unknown, _tenant: string, _object: string, keys: readonly string[]): Promise<ObjectRows> => {
    rows.reads++;
    await new Promise((r) => setTimeout(r, 5));
    const uuids = Array.from({ length: rows.n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const columns = Object.fromEntries(keys.map((k) => [k, k === '@deletedAt' ? new Array(rows.n).fill(null) : Array.from({ length: rows.n }, (_, i) => i)]));
    return { snapshot: '1:1:', version: '1', uuids, columns };
  },
}));
vi.mock('../../read-models/records.queries.js', async (original) => ({
  ...(await original<typeof import('../../read-models/records.queries.js')>()),
  objectRecordCount: async () => {
    rows.counts++;
    await new Promise((r) => setTimeout(r, 5));
    return { live: rows.n, archived: 0 };
  },
}));

const { configureObjectStore, heldObject, objectStoreStats } = await import('../../src/records/object-store.js');
const sql = {} as Sql;

beforeEach(() => {
  configureObjectStore(16_000_000);
  Object.assign(rows, { reads: 0, counts: 0 });
});

describe('the in-process index reading an object', () => {
  it('holds a million rows (no spread of them onto the call stack)', async () => {
    rows.n = 1_000_000;
    const failed = objectStoreStats.failed;
    const object = await heldObject(sql, 't', 'o1', ['n']);
    expect(objectStoreStats.failed).toBe(failed);
    expect(object).not.toBeNull();
    expect(object!.columns.uuids).toHaveLength(1_000_000);
    expect(object!.columns.rows.get('00000000-0000-4000-8000-000000999999')).toBe(999_999);
  }, 60_000);

  it('reads an object once for concurrent first reads', async () => {
    rows.n = 1000;
    const got = await Promise.all(Array.from({ length: 8 }, () => heldObject(sql, 't', 'o2', ['n'])));
    expect(rows.reads).toBe(1);
    expect(rows.counts).toBe(1);
    for (const o of got) expect(o).toBe(got[0]);
    expect(got[0]!.columns.uuids).toHaveLength(1000);
  });
});
