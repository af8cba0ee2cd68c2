import fc from 'fast-check';
import { compileIndexRequest, operatorsFor, type CompiledIndexRequest, type FieldType, type FilterCatalog } from '../../aggregates/record-filter/filter.compile.js';
import { emptyColumns, type ObjectColumns, putRecord, requestColumns } from '../../read-models/record-index/index.js';
import type { FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { recordIndexRequestSchema, type FilterOperator } from '../../aggregates/record-filter/filter.schema.js';

/**
 * Random records, filters and index requests over one catalog of every field type: what the
 * column scan's and the row bitsets' property tests (column-scan.property.test.ts,
 * row-bits.property.test.ts) run against the in-memory evaluator.
 */

export const options = ['red', 'Green', 'blue', 'r%d'];
export const types: Record<string, FieldType> = { t: 'text', n: 'number', d: 'date', dt: 'datetime', b: 'boolean', s: 'text', m: 'list', j: 'json' };
export const chars = ['a', 'A', 'b', 'é', 'É', 'ß', '%', '_', ' ', 'İ', '😀', '\uFFFD', 'z'];
export const text = fc.array(fc.constantFrom(...chars), { maxLength: 4 }).map((a) => a.join(''));
export const uuids = ['00000000-0000-4000-8000-000000000000', '80000000-0000-4000-8000-000000000000', 'ffffffff-ffff-4fff-bfff-ffffffffffff'];

// Values of every shape a stored JSON value can take, of the property's type or not (a property
// whose type changed keeps its old values): the scan must treat each as the evaluator does.
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  text,
  fc.constantFrom(...options),
  fc.constantFrom(-2.5, 0, 1, 1.5, 1e6),
  fc.boolean(),
  fc.constantFrom('2024-01-31', '2024-02-29', '2025-06-15', '2024-01-31T00:00:00.000Z', '2025-06-15T12:00:00.000Z'),
  fc.constantFrom(null, {}, { a: 1 }, [], [1], ['red', null, 'blue'], ['Green', { x: 1 }], ['', 'r%d'], [''], ['', null], ''),
);
export const recordArb = (i: number) =>
  fc.record({
    createdAt: fc.integer({ min: 0, max: 5 }),
    updatedAt: fc.integer({ min: 0, max: 5 }),
    createdBy: fc.constantFrom(null, ...uuids),
    deletedAt: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null, freq: 3 }),
    properties: fc.dictionary(fc.constantFrom(...Object.keys(types)), anyValue, { maxKeys: 6 }),
  }).map((r) => ({ uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, ...r }) as FilterableRecord);

export const catalog: FilterCatalog = { properties: Object.fromEntries(Object.entries(types).map(([name, type]) => [name, { name, type }])) };

export function valueFor(field: string, type: FieldType, op: FilterOperator): fc.Arbitrary<unknown> {
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

export const filterKeys: { key: string; type: FieldType }[] = [
  ...Object.entries(types).map(([key, type]) => ({ key, type })),
  { key: 'uuid', type: 'uuid' },
  { key: 'createdAt', type: 'timestamp' },
  { key: 'updatedAt', type: 'timestamp' },
  { key: 'createdBy', type: 'uuid' },
];
export const filterArb = fc.constantFrom(...filterKeys).chain(({ key, type }) =>
  fc.constantFrom(...operatorsFor[type]).chain((operator) =>
    ['isnull', 'isnotnull', 'isempty', 'isnotempty'].includes(operator) ? fc.constant({ key, operator }) : valueFor(key, type, operator).map((value) => ({ key, operator, value })),
  ),
);
export const requestArb = fc.record(
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

export const datasetArb = fc.integer({ min: 0, max: 60 }).chain((n) =>
  fc.record({
    records: fc.tuple(...Array.from({ length: n }, (_, i) => recordArb(i))),
    // Changes applied in place after the first load: a new version of a record, or its removal.
    changes: fc.array(fc.record({ at: fc.nat(70), drop: fc.boolean(), seed: fc.nat() }), { maxLength: 20 }),
  }),
);

/** A request body compiled, and the records put in a store of its columns (and in a map by uuid, as the evaluator reads them). */
export function loadedStore(body: unknown, records: readonly FilterableRecord[]): { request: CompiledIndexRequest; store: ObjectColumns; live: Map<string, FilterableRecord> } {
  const request = compileIndexRequest(catalog, recordIndexRequestSchema.parse(body));
  const store = emptyColumns(requestColumns(request));
  const live = new Map<string, FilterableRecord>();
  for (const r of records) {
    putRecord(store, r);
    live.set(r.uuid, r);
  }
  return { request, store, live };
}
