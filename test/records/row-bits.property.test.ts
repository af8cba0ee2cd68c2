import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { evaluateIndex, type FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { recordIndexRequestSchema } from '../../aggregates/record-filter/filter.schema.js';
import { cellsOf, dropRecord, emptyColumns, MAX_VALUE_SETS, type ObjectColumns, putRecord, requestColumns, scanColumns } from '../../read-models/record-index/index.js';
import { catalog, datasetArb, loadedStore, recordArb, requestArb } from './filter-arbitraries.js';

/**
 * The law of the row bitsets (row-bits.ts, bits-scan.ts, ADR 0014): for random records and
 * random filter / sort / page requests, the matches found as a bitset give exactly the page and
 * total of the plain in-memory evaluator over the same records; and so after updates, archives,
 * restores and removals applied in place, with the bitsets made before them (kept in step) or
 * made again after them.
 */

const uuidOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

type Change = { at: number; kind: 'put' | 'drop' | 'archive' | 'restore'; seed: number };
const changesArb = fc.array(fc.record({ at: fc.nat(70), kind: fc.constantFrom('put', 'drop', 'archive', 'restore'), seed: fc.nat() }), { maxLength: 25 });

/** Applies a change to the columns in place and to the plain records alike. */
function apply(store: ObjectColumns, live: Map<string, FilterableRecord>, change: Change, next: (at: number, seed: number) => FilterableRecord) {
  const uuid = uuidOf(change.at);
  const now = live.get(uuid);
  if (change.kind === 'drop') {
    dropRecord(store, uuid);
    live.delete(uuid);
    return;
  }
  const record = change.kind === 'put' || !now ? next(change.at, change.seed) : { ...now, deletedAt: change.kind === 'archive' ? 4 : null };
  putRecord(store, record);
  live.set(uuid, record);
}

function expectBitsAnswer(store: ObjectColumns, request: ReturnType<typeof compileIndexRequest>, live: Map<string, FilterableRecord>) {
  const expected = evaluateIndex(request, [...live.values()]);
  const want = { total: expected.total, uuids: expected.rows.map((r) => r.uuid) };
  expect(scanColumns(store, request, { few: 1_000, bits: true }), 'among the matches').toEqual(want);
  expect(scanColumns(store, request, { few: 0, bits: true }), 'by the row order').toEqual(want);
  expect(scanColumns(store, request, { few: 1_000, postings: false, bits: true }), 'no postings').toEqual(want);
  return expected.total;
}

describe('the row bitsets equal the in-memory evaluation', () => {
  it('for random records, requests, and updates, archives, restores and removals in place', () => {
    let nonEmpty = 0;
    let runs = 0;
    const next = (at: number, seed: number) => fc.sample(recordArb(at), { numRuns: 1, seed })[0]!;
    fc.assert(
      fc.property(datasetArb, changesArb, requestArb, (dataset, changes, body) => {
        const { request, store, live } = loadedStore(body, dataset.records);
        expectBitsAnswer(store, request, live);
        for (const change of changes) apply(store, live, change, next);
        // Kept in step through the changes, then made again.
        const total = expectBitsAnswer(store, request, live);
        store.bits = null;
        store.grams.clear();
        expectBitsAnswer(store, request, live);
        runs++;
        if (total > 0) nonEmpty++;
      }),
      { numRuns: 1000, seed: 17 },
    );
    expect(nonEmpty / runs).toBeGreaterThan(0.3);
  });

  it('reads the rows of a column that passes its value sets, before or after they were made', () => {
    // A number column of up to 200 values: past MAX_VALUE_SETS its sets are dropped (at their
    // making, or by an update) and equality tests its rows.
    const rec = (i: number) =>
      fc.record({ n: fc.integer({ min: 0, max: 200 }), s: fc.constantFrom('a', 'b', ['a', 'c'], null), deletedAt: fc.option(fc.constant(1), { nil: null, freq: 4 }) }).map(
        ({ n, s, deletedAt }) => ({ uuid: uuidOf(i), createdAt: i % 5, updatedAt: 0, deletedAt, properties: { n, s } }) as FilterableRecord,
      );
    const data = fc.integer({ min: 0, max: 120 }).chain((n) => fc.record({ records: fc.tuple(...Array.from({ length: n }, (_, i) => rec(i))), changes: changesArb }));
    const condition = fc.oneof(
      fc.record({ key: fc.constant('n'), operator: fc.constantFrom('equals', 'notEquals'), value: fc.integer({ min: 0, max: 200 }) }),
      fc.record({ key: fc.constant('n'), operator: fc.constantFrom('in', 'notIn'), value: fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 3 }) }),
      fc.record({ key: fc.constant('s'), operator: fc.constantFrom('equals', 'notEquals'), value: fc.constantFrom('a', 'b', 'c') }),
    );
    const body = fc.record({ filters: fc.array(condition, { minLength: 1, maxLength: 2 }), limit: fc.integer({ min: 1, max: 6 }), page: fc.integer({ min: 0, max: 2 }), archived: fc.constantFrom('exclude', 'include', 'only') });
    let dropped = 0;
    fc.assert(
      fc.property(data, body, (dataset, b) => {
        const request = compileIndexRequest(catalog, recordIndexRequestSchema.parse(b));
        const store = emptyColumns(requestColumns(request));
        const live = new Map<string, FilterableRecord>();
        const next = (at: number, seed: number) => fc.sample(rec(at), { numRuns: 1, seed })[0]!;
        for (const r of dataset.records) apply(store, live, { at: Number(r.uuid.slice(-12)), kind: 'put', seed: 0 }, () => r);
        expectBitsAnswer(store, request, live);
        for (const change of dataset.changes) apply(store, live, change, next);
        expectBitsAnswer(store, request, live);
        if (store.bits?.values.get('n') === null) dropped++;
      }),
      { numRuns: 600, seed: 18 },
    );
    expect(dropped).toBeGreaterThan(50);
    expect(MAX_VALUE_SETS).toBeLessThan(200);
  });

  it('counts the bitsets in the store’s cells', () => {
    const request = compileIndexRequest(catalog, recordIndexRequestSchema.parse({ filters: [{ key: 't', operator: 'equals', value: 'red' }, { key: 't', operator: 'contains', value: 're' }], limit: 5 }));
    const store = emptyColumns(requestColumns(request));
    for (let i = 0; i < 10_000; i++) putRecord(store, { uuid: uuidOf(i), createdAt: i, updatedAt: 0, deletedAt: null, properties: { t: i % 3 ? 'red' : 'green' } } as FilterableRecord);
    const before = cellsOf(store);
    expect(scanColumns(store, request).total).toBe(6666);
    // Live, archived, `t`'s others and its two values' sets, and the gram `re`'s set: 6 sets of 313 words, a quarter cell each.
    expect(cellsOf(store) - before).toBeGreaterThanOrEqual(Math.ceil((6 * 313) / 4));
  });
});
