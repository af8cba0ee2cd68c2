import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileIndexRequest, operatorsFor, type FieldType, type FilterCatalog } from '../../aggregates/record-filter/filter.compile.js';
import { effectiveSort, evaluateIndex, inArchiveScope, evaluateFilter, compareRecords, sortKeys, type FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { applyChanges, matchSetFromRaw, pageOf, type RankedRecord, setSort } from '../../read-models/record-index/index.js';
import { recordIndexRequestSchema, type FilterOperator } from '../../aggregates/record-filter/filter.schema.js';

/**
 * The law of kept match sets (read-models/record-index/index-cache.ts): a set brought up to date with the
 * changed records' rows equals the matches of the records as they now are, evaluated afresh, for
 * any request, any records and any changes (updates, archives, restores, new records, records
 * leaving the object), with free text too (the database's hit and rank of each row given).
 */

const types: Record<string, FieldType> = { t: 'text', n: 'number', s: 'text', d: 'date', m: 'list' };
const catalog: FilterCatalog = { properties: Object.fromEntries(Object.entries(types).map(([name, type]) => [name, { name, type }])) };
const words = ['a', 'ab', 'B', 'ba', 'é', ''];
const valueOf: Record<string, fc.Arbitrary<unknown>> = {
  t: fc.constantFrom(...words),
  n: fc.constantFrom(-1, 0, 0.5, 2),
  s: fc.constantFrom('red', 'blue'),
  d: fc.constantFrom('2024-01-01', '2024-06-30', '2025-01-01'),
  m: fc.uniqueArray(fc.constantFrom('red', 'blue', 'x'), { maxLength: 2 }),
};
const uuids = Array.from({ length: 16 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

const propertiesArb = fc.record(Object.fromEntries(Object.entries(valueOf).map(([k, a]) => [k, fc.option(a, { nil: undefined, freq: 3 })])), { requiredKeys: [] });
const rowArb = (uuid: string) =>
  fc.record({
    properties: propertiesArb.map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined))),
    createdAt: fc.constantFrom(1, 2, 3),
    updatedAt: fc.constantFrom(5, 6),
    deletedAt: fc.option(fc.constant(9), { nil: null, freq: 4 }),
    // What the database says of a free-text query on this row.
    hit: fc.boolean(),
    rank: fc.constantFrom(0.1, 0.25, 0.5),
  }).map((r): RankedRecord => ({ uuid, ...r }));
/** A state of the object: each uuid a record of it or not. */
const stateArb = fc.tuple(...uuids.map((u) => fc.option(rowArb(u), { nil: undefined, freq: 2 })));

function valueFor(key: string, type: FieldType, op: FilterOperator): fc.Arbitrary<unknown> {
  const scalar = key === 'createdAt' ? fc.constantFrom(1, 2, 3) : type === 'list' ? fc.constantFrom('red', 'x') : ['contains', 'notContains', 'startsWith', 'endsWith'].includes(op) ? fc.constantFrom(...words) : valueOf[key]!;
  if (op === 'in' || op === 'notIn') return fc.array(scalar, { minLength: 1, maxLength: 2 });
  if (op === 'between') return fc.tuple(scalar, scalar);
  return scalar;
}
const keys = [...Object.entries(types).map(([key, type]) => ({ key, type })), { key: 'createdAt', type: 'timestamp' as FieldType }];
const filterArb = fc.constantFrom(...keys).chain(({ key, type }) =>
  fc.constantFrom(...operatorsFor[type]).chain((operator) =>
    ['isnull', 'isnotnull', 'isempty', 'isnotempty'].includes(operator) ? fc.constant({ key, operator }) : valueFor(key, type, operator).map((value) => ({ key, operator, value })),
  ),
);
const requestArb = fc.record({
  filters: fc.array(filterArb, { minLength: 1, maxLength: 2 }),
  groups: fc.array(fc.record({ items: fc.array(filterArb.map(({ key, ...rest }) => ({ property: key, ...rest })), { minLength: 1, maxLength: 2 }) }), { maxLength: 2 }),
  sort: fc.array(fc.record({ key: fc.constantFrom('t', 'n', 'd', 's', 'createdAt', 'updatedAt', 'uuid'), direction: fc.constantFrom('asc', 'desc') }), { maxLength: 2 }),
  archived: fc.constantFrom('exclude', 'include', 'only'),
  limit: fc.integer({ min: 1, max: 5 }),
  page: fc.integer({ min: 0, max: 2 }),
  query: fc.option(fc.constant('some words'), { nil: undefined }),
});

const present = (state: readonly (RankedRecord | undefined)[]) => state.filter((r): r is RankedRecord => r !== undefined);

/** Every match in order, as the database finds and orders them (free text: its hits, by rank first). */
function matchesOf(req: ReturnType<typeof compileIndexRequest>, records: readonly RankedRecord[]) {
  return records
    .filter((r) => (!req.query || r.hit) && inArchiveScope(req.archived, r) && evaluateFilter(req.filter, r))
    .sort((a, b) => compareRecords(setSort(req), a, b));
}

/** The set as the database would give it: every match in order, as the raw values of the sort fields. */
function setOf(req: ReturnType<typeof compileIndexRequest>, records: readonly RankedRecord[]) {
  const raw = (r: RankedRecord) => effectiveSort(setSort(req)).map(({ field }) => (field.system ? (r as unknown as Record<string, unknown>)[field.name] : r.properties[field.name]));
  return matchSetFromRaw(req, matchesOf(req, records).map(raw));
}

describe('kept match sets', () => {
  it('a set read from raw values has the sort keys of its records', () => {
    fc.assert(
      fc.property(requestArb, stateArb, (body, state) => {
        const req = compileIndexRequest(catalog, recordIndexRequestSchema.parse(body));
        const records = present(state);
        const expected = req.query ? matchesOf(req, records).map((r) => sortKeys(setSort(req), r)) : evaluateIndex({ ...req, page: 0, limit: 1000 }, records).rows.map((r) => sortKeys(req.sort, r));
        expect(setOf(req, records).members).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('brought up to date with the changed records, equals the matches evaluated afresh', () => {
    let moved = 0;
    fc.assert(
      fc.property(requestArb, stateArb, stateArb, fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }), (body, before, next, changes) => {
        const req = compileIndexRequest(catalog, recordIndexRequestSchema.parse(body));
        // The records flagged changed take their next state (a new row, a changed one, none: gone).
        const after = before.map((r, i) => (changes[i] ? next[i] : r));
        const changed = uuids.filter((_, i) => changes[i]);
        const kept = setOf(req, present(before));
        const refreshed = applyChanges(req, kept, changed, present(after).filter((r) => changed.includes(r.uuid)));
        expect(refreshed.members).toEqual(setOf(req, present(after)).members);
        const fresh = matchesOf(req, present(after));
        const start = req.page * req.limit;
        expect({ total: refreshed.members.length, page: pageOf(refreshed, req.page, req.limit) }).toEqual({ total: fresh.length, page: fresh.slice(start, start + req.limit).map((r) => r.uuid) });
        if (!req.query) expect(fresh.map((r) => r.uuid)).toEqual(evaluateIndex({ ...req, page: 0, limit: 1000 }, present(after)).rows.map((r) => r.uuid));
        if (kept.members.length !== refreshed.members.length) moved++;
      }),
      { numRuns: 500 },
    );
    // Not vacuous: changes often move records in or out.
    expect(moved).toBeGreaterThan(50);
  });

  it('with nothing changed, is the same set', () => {
    const req = compileIndexRequest(catalog, recordIndexRequestSchema.parse({ filters: [{ key: 't', operator: 'contains', value: 'a' }] }));
    const set = setOf(req, [{ uuid: uuids[0]!, createdAt: 1, updatedAt: 1, properties: { t: 'ab' } }]);
    expect(applyChanges(req, set, [], [])).toBe(set);
    expect(pageOf(set, 0, 10)).toEqual([uuids[0]]);
  });
});
