import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ObjectRows } from '../../read-models/record-index/index.js';
import type { Sql } from '../../ports/sql.js';
import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';

// The in-process index's first read of an object (read-models/record-index/object-store.ts), with the database
// replaced by a synthetic object: a million rows are taken in pages without a spread of them as
// arguments (which overflows the call stack), concurrent first reads of one object share one
// read, and the build runs in the background in slices (ADR 0019).
const rows = vi.hoisted(() => ({ n: 0, reads: 0, counts: 0 }));

vi.mock('../../read-models/record-index/object-rows.queries.js', () => ({
  // Pages of `limit` records after the last one read (its row number stands for its createdAt).
  objectRows: async (_sql: unknown, _tenant: string, _object: string, keys: readonly string[], page: { after?: readonly [string, string]; limit: number }) => {
    rows.reads++;
    await new Promise((r) => setTimeout(r, 5));
    const from = page.after ? Number(page.after[0]) + 1 : 0;
    const to = Math.min(rows.n, from + page.limit);
    const uuids = Array.from({ length: to - from }, (_, i) => `00000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`);
    const columns = Object.fromEntries(keys.map((k) => [k, k === '@deletedAt' ? new Array(to - from).fill(null) : Array.from({ length: to - from }, (_, i) => from + i)]));
    const last = to > from ? ([String(to - 1), uuids.at(-1)!] as const) : undefined;
    return { snapshot: '1:1:', version: '1', uuids, columns, ...(last ? { last } : {}) } satisfies ObjectRows;
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

const { configureObjectStore, objectStoreSettled, objectStoreStats, prepareObject, readyObject, scanColumns, scanPrepared } = await import('../../read-models/record-index/index.js');
const sql = {} as Sql;

const n = { name: 'n', type: 'number', system: false } as const;
/** Numbers over 10, by n descending: a scan of it reads row bitsets and the row order of `n desc`. */
const request: CompiledIndexRequest = { filter: { all: [{ field: n, op: 'gt', value: 10 }], anyOf: [] }, sort: [{ field: n, direction: 'desc' }], archived: 'exclude', page: 0, limit: 3 };

beforeEach(() => {
  configureObjectStore(16_000_000);
  Object.assign(rows, { reads: 0, counts: 0 });
});

describe('the in-process index reading an object', () => {
  it('holds a million rows (read in pages; no spread of them onto the call stack)', async () => {
    rows.n = 1_000_000;
    const failed = objectStoreStats.failed;
    const object = await prepareObject(sql, 't', 'o1', request);
    expect(objectStoreStats.failed).toBe(failed);
    expect(object).not.toBeNull();
    expect(rows.reads).toBe(201); // 200 full pages, then an empty one
    expect(object!.columns.uuids).toHaveLength(1_000_000);
    expect(object!.columns.rows.get('00000000-0000-4000-8000-000000999999')).toBe(999_999);
    expect(object!.columns.columns.get('n')![999_999]).toBe(999_999);
  }, 60_000);

  it('reads an object once for concurrent first reads', async () => {
    rows.n = 1000;
    const got = await Promise.all(Array.from({ length: 8 }, () => prepareObject(sql, 't', 'o2', request)));
    expect(rows.reads).toBe(1);
    expect(rows.counts).toBe(1);
    for (const o of got) expect(o).toBe(got[0]);
    expect(got[0]!.columns.uuids).toHaveLength(1000);
  });

  it('is not ready at the first request: it is built in the background, giving the event loop back, then answers', async () => {
    rows.n = 300_000;
    expect(readyObject(sql, 't', 'o3', request)).toBeNull();
    // A timer ticking while the object is read and its row order sorted: the build yields between slices.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    await objectStoreSettled();
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(20);
    const object = readyObject(sql, 't', 'o3', request);
    expect(object).not.toBeNull();
    expect(scanPrepared(object!.columns, request)).toBe(true);
    expect(object!.columns.orders.size).toBe(1);
    expect(scanColumns(object!.columns, request)).toEqual({
      total: 300_000 - 11,
      uuids: [299_999, 299_998, 299_997].map((i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
    });
    // Another shape (a sort it holds no order for) is not ready until that order is made too.
    const other: CompiledIndexRequest = { ...request, sort: [{ field: n, direction: 'asc' }] };
    expect(readyObject(sql, 't', 'o3', other)).toBeNull();
    await objectStoreSettled();
    expect(readyObject(sql, 't', 'o3', other)).toBe(object);
    expect(rows.reads).toBe(61); // the first build's pages only: the second made an order, it read nothing
  }, 60_000);
});
