import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileIndexRequest, operatorsFor, type FieldType, type FilterCatalog } from '../../aggregates/record-filter/filter.compile.js';
import { evaluateIndex, type FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { recordIndexRequestSchema, type FilterOperator } from '../../aggregates/record-filter/filter.schema.js';
import { requestColumns, scanColumns } from '../../aggregates/record-filter/column-scan.js';
import { dropRecord, emptyColumns, putRecord } from '../../aggregates/record-filter/object-columns.js';

/**
 * The law of the column scan (the in-process index, src/records/object-store.ts): for random
 * records, random changes applied to the columns in place, and random filter / sort / page
 * requests, the scan answers exactly what the plain in-memory evaluator answers over the same
 * records. The evaluator is held equal to the SQL engine by record-index.property.test.ts.
 */

const options = ['red', 'Green', 'blue', 'r%d'];
const types: Record<string, FieldType> = { t: 'text', n: 'number', d: 'date', dt: 'datetime', b: 'boolean', s: 'text', m: 'list', j: 'json' };
const chars = ['a', 'A', 'b', 'é', 'É', 'ß', '%', '_', ' ', 'İ', '😀', '\uFFFD', 'z'];
const text = fc.array(fc.constantFrom(...chars), { maxLength: 4 }).map((a) => a.join(''));
const uuids = ['00000000-0000-4000-8000-000000000000', '80000000-0000-4000-8000-000000000000', 'ffffffff-ffff-4fff-bfff-ffffffffffff'];

// Values of every shape a stored JSON value can take, of the property's type or not (a property
// whose type changed keeps its old values): the scan must treat each as the evaluator does.
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  text,
  fc.constantFrom(...options),
  fc.constantFrom(-2.5, 0, 1, 1.5, 1e6),
  fc.boolean(),
  fc.constantFrom('2024-01-31', '2024-02-29', '2025-06-15', '2024-01-31T00:00:00.000Z', '2025-06-15T12:00:00.000Z'),
  fc.constantFrom(null, {}, { a: 1 }, [], [1], ['red', null, 'blue'], ['Green', { x: 1 }], ['', 'r%d'], [''], ['', null], ''),
);
const recordArb = (i: number) =>
  fc.record({
    createdAt: fc.integer({ min: 0, max: 5 }),
    updatedAt: fc.integer({ min: 0, max: 5 }),
    createdBy: fc.constantFrom(null, ...uuids),
    deletedAt: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null, freq: 3 }),
    properties: fc.dictionary(fc.constantFrom(...Object.keys(types)), anyValue, { maxKeys: 6 }),
  }).map((r) => ({ uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, ...r }) as FilterableRecord);

const catalog: FilterCatalog = { properties: Object.fromEntries(Object.entries(types).map(([name, type]) => [name, { name, type }])) };

function valueFor(field: string, type: FieldType, op: FilterOperator): fc.Arbitrary<unknown> {
  const scalar: fc.Arbitrary<unknown> = ['contains', 'notContains', 'startsWith', 'endsWith'].includes(op)
    ? text
    : field === 'uuid' || field === 'createdBy'
      ? fc.constantFrom(...uuids)
      : type === 'timestamp'
        ? fc.integer({ min: 0, max: 5 })
        : type === 'number'
          ? fc.constantFrom(-2.5, 0, 1, 1.5, 1e6)
          : type === 'boolean'
            ? fc.boolean()
            : type === 'date'
              ? fc.constantFrom('2024-01-31', '2024-02-29', '2025-06-15')
              : type === 'datetime'
                ? fc.constantFrom('2024-01-31T00:00:00.000Z', '2025-06-15T12:00:00.000Z')
                : fc.oneof(text, fc.constantFrom(...options));
  if (op === 'in' || op === 'notIn') return fc.array(scalar, { minLength: 1, maxLength: 3 });
  if (op === 'between') return fc.tuple(scalar, scalar);
  return scalar;
}

const filterKeys: { key: string; type: FieldType }[] = [
  ...Object.entries(types).map(([key, type]) => ({ key, type })),
  { key: 'uuid', type: 'uuid' },
  { key: 'createdAt', type: 'timestamp' },
  { key: 'updatedAt', type: 'timestamp' },
  { key: 'createdBy', type: 'uuid' },
];
const filterArb = fc.constantFrom(...filterKeys).chain(({ key, type }) =>
  fc.constantFrom(...operatorsFor[type]).chain((operator) =>
    ['isnull', 'isnotnull', 'isempty', 'isnotempty'].includes(operator) ? fc.constant({ key, operator }) : valueFor(key, type, operator).map((value) => ({ key, operator, value })),
  ),
);
const requestArb = fc.record(
  {
    filters: fc.array(filterArb, { maxLength: 3 }),
    groups: fc.array(fc.record({ items: fc.array(filterArb.map(({ key, ...rest }) => ({ property: key, ...rest })), { minLength: 1, maxLength: 2 }) }), { maxLength: 2 }),
    sort: fc.array(fc.record({ key: fc.constantFrom('t', 'n', 'd', 'dt', 'b', 's', 'uuid', 'createdAt', 'updatedAt', 'createdBy'), direction: fc.constantFrom('asc', 'desc') }), { maxLength: 2 }),
    limit: fc.integer({ min: 1, max: 8 }),
    page: fc.integer({ min: 0, max: 4 }),
    archived: fc.constantFrom('exclude', 'include', 'only'),
  },
  { requiredKeys: ['filters', 'sort', 'limit', 'page'] },
);

const datasetArb = fc.integer({ min: 0, max: 60 }).chain((n) =>
  fc.record({
    records: fc.tuple(...Array.from({ length: n }, (_, i) => recordArb(i))),
    // Changes applied in place after the first load: a new version of a record, or its removal.
    changes: fc.array(fc.record({ at: fc.nat(70), drop: fc.boolean(), seed: fc.nat() }), { maxLength: 20 }),
  }),
);

describe('the column scan equals the in-memory evaluation', () => {
  it('for random records, in-place changes and requests', () => {
    let nonEmpty = 0;
    let runs = 0;
    fc.assert(
      fc.property(datasetArb, requestArb, (dataset, body) => {
        const request = compileIndexRequest(catalog, recordIndexRequestSchema.parse(body));
        const store = emptyColumns(requestColumns(request));
        const live = new Map<string, FilterableRecord>();
        for (const r of dataset.records) {
          putRecord(store, r);
          live.set(r.uuid, r);
        }
        // Every way of putting the page in order: among the matches, the row order made now, the
        // row order kept through the changes below (walked, or by places); every way of finding
        // the matches: every row read, a text condition's gram postings (made now, or kept through
        // the changes below with the changed rows noted in them, or made again after them).
        const answer = (few: number, postings = true) => scanColumns(store, request, { few, postings });
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
          expect(scanColumns(store, request, { few: 1_000 })).toEqual(want);
          expect(scanColumns(store, request, { few: 0 })).toEqual(want);
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
