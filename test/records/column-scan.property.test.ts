import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { evaluateIndex, type FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { recordIndexRequestSchema } from '../../aggregates/record-filter/filter.schema.js';
import { dropRecord, emptyColumns, putRecord, requestColumns, scanColumns } from '../../read-models/record-index/index.js';
import { catalog, datasetArb, loadedStore, recordArb, requestArb } from './filter-arbitraries.js';

/**
 * The law of the column scan (the in-process index, read-models/record-index/object-store.ts): for random
 * records, random changes applied to the columns in place, and random filter / sort / page
 * requests, the scan answers exactly what the plain in-memory evaluator answers over the same
 * records. The evaluator is held equal to the SQL engine by record-index.property.test.ts.
 */

describe('the column scan equals the in-memory evaluation', () => {
  it('for random records, in-place changes and requests', () => {
    let nonEmpty = 0;
    let runs = 0;
    fc.assert(
      fc.property(datasetArb, requestArb, (dataset, body) => {
        const { request, store, live } = loadedStore(body, dataset.records);
        // The matches as a list of rows (row-bits.property.test.ts holds the bitsets). Every way of
        // putting the page in order: among the matches, the row order made now, the row order kept
        // through the changes below (walked, or by places); every way of finding the matches: every
        // row read, a text condition's gram postings (made now, or kept through the changes below
        // with the changed rows noted in them, or made again after them).
        const answer = (few: number, postings = true) => scanColumns(store, request, { few, postings, bits: false });
        const expectAll = () => {
          const expected = evaluateIndex(request, [...live.values()]);
          const want = { total: expected.total, uuids: expected.rows.map((r) => r.uuid) };
          expect(answer(1_000), 'among the matches').toEqual(want);
          expect(answer(0), 'by the row order').toEqual(want);
          expect(answer(1_000, false), 'every row read').toEqual(want);
          return expected;
        };
        expectAll();
        for (const change of dataset.changes) {
          const uuid = `00000000-0000-4000-8000-${String(change.at).padStart(12, '0')}`;
          if (change.drop) {
            dropRecord(store, uuid);
            live.delete(uuid);
          } else {
            const [next] = fc.sample(recordArb(change.at), { numRuns: 1, seed: change.seed });
            putRecord(store, next!);
            live.set(uuid, next!);
          }
        }
        const expected = expectAll();
        store.grams.clear();
        expectAll();
        runs++;
        if (expected.total > 0) nonEmpty++;
      }),
      { numRuns: 1000, seed: 15 },
    );
    // Vacuous if nothing ever matched.
    expect(nonEmpty / runs).toBeGreaterThan(0.3);
  });

  it('answers text conditions through gram postings as the evaluator does', () => {
    // Few letters, so that rows often hold a term's grams without the term (the postings' candidates
    // must be tested), with folding that changes lengths (ß, İ) and surrogate pairs.
    const letters = fc.array(fc.constantFrom('a', 'b', 'A', 'ß', 'İ', '😀'), { maxLength: 6 }).map((a) => a.join(''));
    const value = fc.oneof({ weight: 6, arbitrary: letters }, { weight: 1, arbitrary: fc.constantFrom(undefined, null, 3, ['ab', 'x'], [], ['ba']) });
    const rec = (i: number) =>
      fc.record({ deletedAt: fc.option(fc.constant(1), { nil: null, freq: 5 }), t: value, s: value }).map(({ deletedAt, t, s }) => ({
        uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        createdAt: i % 7,
        updatedAt: 0,
        deletedAt,
        properties: { ...(t === undefined ? {} : { t }), ...(s === undefined ? {} : { s }) },
      }) as FilterableRecord);
    const condition = fc.record({ key: fc.constantFrom('t', 's'), operator: fc.constantFrom('contains', 'startsWith', 'endsWith', 'notContains', 'equals'), value: letters.filter((x) => x.length > 0) });
    const body = fc.record({
      filters: fc.array(condition, { minLength: 1, maxLength: 2 }),
      limit: fc.integer({ min: 1, max: 6 }),
      page: fc.integer({ min: 0, max: 2 }),
      archived: fc.constantFrom('exclude', 'include', 'only'),
    });
    const data = fc.integer({ min: 0, max: 80 }).chain((n) =>
      fc.record({ records: fc.tuple(...Array.from({ length: n }, (_, i) => rec(i))), changes: fc.array(fc.record({ at: fc.nat(90), drop: fc.boolean(), seed: fc.nat() }), { maxLength: 30 }) }),
    );
    let nonEmpty = 0;
    fc.assert(
      fc.property(data, body, (dataset, b) => {
        const request = compileIndexRequest(catalog, recordIndexRequestSchema.parse(b));
        const store = emptyColumns(requestColumns(request));
        const live = new Map<string, FilterableRecord>();
        const put = (r: FilterableRecord) => (putRecord(store, r), live.set(r.uuid, r));
        dataset.records.forEach(put);
        const check = () => {
          const expected = evaluateIndex(request, [...live.values()]);
          const want = { total: expected.total, uuids: expected.rows.map((r) => r.uuid) };
          for (const bits of [false, true]) {
            expect(scanColumns(store, request, { few: 1_000, bits })).toEqual(want);
            expect(scanColumns(store, request, { few: 0, bits })).toEqual(want);
          }
          if (expected.total > 0) nonEmpty++;
        };
        check();
        for (const change of dataset.changes) {
          const uuid = `00000000-0000-4000-8000-${String(change.at).padStart(12, '0')}`;
          if (change.drop) {
            dropRecord(store, uuid);
            live.delete(uuid);
          } else put(fc.sample(rec(change.at), { numRuns: 1, seed: change.seed })[0]!);
        }
        check();
        store.grams.clear();
        check();
      }),
      { numRuns: 1500, seed: 16 },
    );
    expect(nonEmpty).toBeGreaterThan(1000);
  });

  it('pages a large set through the bounded heap as a full sort would', () => {
    const records = Array.from({ length: 5000 }, (_, i) => ({
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      createdAt: i % 97,
      updatedAt: i,
      deletedAt: null,
      properties: { n: i % 13, t: `w${i % 7}` },
    }));
    for (const page of [0, 3, 40]) {
      const request = compileIndexRequest(catalog, recordIndexRequestSchema.parse({ filters: [{ key: 't', operator: 'contains', value: 'w' }], sort: [{ key: 'n', direction: 'desc' }], limit: 20, page }));
      const store = emptyColumns(requestColumns(request));
      for (const r of records) putRecord(store, r);
      const expected = evaluateIndex(request, records);
      expect(scanColumns(store, request)).toEqual({ total: 5000, uuids: expected.rows.map((r) => r.uuid) });
    }
  });
});
