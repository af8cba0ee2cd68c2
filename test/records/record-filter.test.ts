import { describe, expect, it } from 'vitest';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { compileFilter, compileIndexRequest, type FilterCatalog } from '../../aggregates/record-filter/filter.compile.js';
import { evaluateFilter, evaluateIndex, type FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { normaliseOperator, recordIndexRequestSchema } from '../../aggregates/record-filter/filter.schema.js';
import { canonicalDateTime, compareText } from '../../aggregates/record-filter/values.js';

const catalog: FilterCatalog = {
  properties: {
    name: { name: 'name', type: 'text' },
    amount: { name: 'amount', type: 'number' },
    due: { name: 'due', type: 'date' },
    at: { name: 'at', type: 'datetime' },
    vip: { name: 'vip', type: 'boolean' },
    tags: { name: 'tags', type: 'list' },
    meta: { name: 'meta', type: 'json' },
  },
  relations: { company: { properties: { city: { name: 'city', type: 'text' } } } },
};

const rec = (uuid: string, properties: Record<string, unknown>, extra: Partial<FilterableRecord> = {}): FilterableRecord => ({
  uuid,
  createdAt: 1000,
  updatedAt: 1000,
  createdBy: null,
  properties,
  ...extra,
});

const match = (filters: { key: string; operator: string; value?: unknown }[], r: FilterableRecord) =>
  evaluateFilter(compileFilter(catalog, { filters: filters.map((f) => ({ ...f, operator: normaliseOperator(f.operator)! })) }), r);

function problemsOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.details.map((d) => ({ field: d.field, type: d.type }));
    throw err;
  }
  throw new Error('expected a DomainError');
}

describe('operators', () => {
  it('normalises the spec spellings and refuses unknown ones', () => {
    expect(normaliseOperator('EQUALS')).toBe('equals');
    expect(normaliseOperator('NOT_EQUALS')).toBe('notEquals');
    expect(normaliseOperator('is-null')).toBe('isnull');
    expect(normaliseOperator('IS_NOT_EMPTY')).toBe('isnotempty');
    expect(normaliseOperator('like')).toBeUndefined();
    const parsed = recordIndexRequestSchema.safeParse({ filters: [{ key: 'name', operator: 'LIKE', value: 'x' }] });
    expect(parsed.success).toBe(false);
    expect(recordIndexRequestSchema.parse({ filters: [{ key: 'name', operator: 'STARTS_WITH', value: 'x' }] }).filters[0]!.operator).toBe('startsWith');
  });

  it('applies defaults, numbers pages from 0 and refuses a limit above the maximum', () => {
    expect(recordIndexRequestSchema.parse({})).toMatchObject({ limit: 25, page: 0, archived: 'exclude', filters: [], sort: [] });
    expect(recordIndexRequestSchema.parse({ limit: 100, page: 3 })).toMatchObject({ limit: 100, page: 3 });
    const tooMany = recordIndexRequestSchema.safeParse({ limit: 5000 });
    expect(tooMany.success).toBe(false);
    expect(tooMany.error?.issues[0]?.message).toBe('limit is at most 100');
  });
});

describe('semantics', () => {
  const a = rec('a', { name: 'Ada Lovelace', amount: 10, due: '2024-05-01', vip: true, tags: ['x', 'y'], meta: { k: 1 } });
  const empty = rec('b', { name: '', tags: [] });

  it('text operators fold case for contains / startsWith / endsWith, equals is exact', () => {
    expect(match([{ key: 'name', operator: 'contains', value: 'LOVE' }], a)).toBe(true);
    expect(match([{ key: 'name', operator: 'startsWith', value: 'ada' }], a)).toBe(true);
    expect(match([{ key: 'name', operator: 'endsWith', value: 'LACE' }], a)).toBe(true);
    expect(match([{ key: 'name', operator: 'equals', value: 'ada lovelace' }], a)).toBe(false);
    expect(match([{ key: 'name', operator: 'equals', value: 'Ada Lovelace' }], a)).toBe(true);
    expect(match([{ key: 'name', operator: 'gt', value: 'Ada' }], a)).toBe(true);
  });

  it('negative operators are exact complements, so missing values match them', () => {
    expect(match([{ key: 'amount', operator: 'notEquals', value: 10 }], empty)).toBe(true);
    expect(match([{ key: 'amount', operator: 'notIn', value: [1, 10] }], a)).toBe(false);
    expect(match([{ key: 'name', operator: 'notContains', value: 'zzz' }], empty)).toBe(true);
  });

  it('null and empty: empty string and empty list are empty; an empty list is also null', () => {
    expect(match([{ key: 'name', operator: 'isnull' }], empty)).toBe(false);
    expect(match([{ key: 'name', operator: 'isempty' }], empty)).toBe(true);
    expect(match([{ key: 'tags', operator: 'isnull' }], empty)).toBe(true);
    expect(match([{ key: 'amount', operator: 'isnull' }], empty)).toBe(true);
    expect(match([{ key: 'meta', operator: 'isnotempty' }], a)).toBe(true);
    expect(match([{ key: 'meta', operator: 'isempty' }], empty)).toBe(true);
  });

  it('numbers, dates, lists and booleans', () => {
    expect(match([{ key: 'amount', operator: 'between', value: [10, 20] }], a)).toBe(true);
    expect(match([{ key: 'amount', operator: 'gt', value: 10 }], a)).toBe(false);
    expect(match([{ key: 'due', operator: 'lt', value: '2024-05-02' }], a)).toBe(true);
    expect(match([{ key: 'tags', operator: 'equals', value: 'y' }], a)).toBe(true);
    expect(match([{ key: 'tags', operator: 'in', value: ['q', 'x'] }], a)).toBe(true);
    expect(match([{ key: 'vip', operator: 'equals', value: true }], a)).toBe(true);
    expect(match([{ key: 'createdAt', operator: 'gte', value: '1970-01-01T00:00:01Z' }], a)).toBe(true);
  });

  it('relation conditions look at every connected record', () => {
    const r = rec('c', {}, { related: { company: [rec('d', { city: 'Paris' }), rec('e', { city: 'Oslo' })] } });
    expect(match([{ key: 'company.city', operator: 'equals', value: 'Oslo' }], r)).toBe(true);
    expect(match([{ key: 'company.city', operator: 'notEquals', value: 'Oslo' }], r)).toBe(false);
    expect(match([{ key: 'company.city', operator: 'equals', value: 'Oslo' }], a)).toBe(false);
  });

  it('groups are an OR of ANDs', () => {
    const f = compileFilter(catalog, {
      groups: [
        { items: [{ property: 'amount', operator: 'gt', value: 100 }] },
        { items: [{ property: 'name', operator: 'contains', value: 'ada' }, { property: 'vip', operator: 'equals', value: true }] },
      ],
    });
    expect(evaluateFilter(f, a)).toBe(true);
    expect(evaluateFilter(f, empty)).toBe(false);
  });
});

describe('compile errors', () => {
  it('lists every bad key, operator and value in one 400', () => {
    const details = problemsOf(() =>
      compileFilter(catalog, {
        filters: [
          { key: 'nope', operator: 'equals', value: 1 },
          { key: 'amount', operator: 'contains', value: '1' },
          { key: 'amount', operator: 'equals', value: '1' },
          { key: 'due', operator: 'equals', value: '2024-02-30' },
          { key: 'amount', operator: 'between', value: [1] },
        ],
      }),
    );
    expect(details).toEqual([
      { field: 'body.filters.0.key', type: 'VALIDATION' },
      { field: 'body.filters.1.operator', type: 'INVALID_VALUE' },
      { field: 'body.filters.2.value', type: 'INVALID_VALUE' },
      { field: 'body.filters.3.value', type: 'INVALID_DATE' },
      { field: 'body.filters.4.value', type: 'INVALID_VALUE' },
    ]);
  });

  it('refuses sorting on lists and unknown show fields', () => {
    const request = recordIndexRequestSchema.parse({ sort: [{ key: 'tags', direction: 'DESC' }], show: ['nope'] });
    expect(problemsOf(() => compileIndexRequest(catalog, request))).toEqual([
      { field: 'body.sort.0.key', type: 'VALIDATION' },
      { field: 'body.show.0', type: 'VALIDATION' },
    ]);
  });
});

describe('in-memory index', () => {
  it('sorts missing values last both ways and breaks ties by uuid', () => {
    const rows = [rec('3', { amount: 1 }), rec('1', {}), rec('2', { amount: 1 }), rec('4', { amount: 5 })];
    const asc = compileIndexRequest(catalog, recordIndexRequestSchema.parse({ sort: [{ key: 'amount' }] }));
    expect(evaluateIndex(asc, rows).rows.map((r) => r.uuid)).toEqual(['2', '3', '4', '1']);
    const desc = compileIndexRequest(catalog, recordIndexRequestSchema.parse({ sort: [{ key: 'amount', direction: 'desc' }], limit: 2, page: 1 }));
    expect(evaluateIndex(desc, rows)).toMatchObject({ total: 4, rows: [{ uuid: '3' }, { uuid: '1' }] });
  });
});

describe('values', () => {
  it('canonical date-times and code point order', () => {
    expect(canonicalDateTime('2024-05-01T14:00:00+02:00')).toBe('2024-05-01T12:00:00.000Z');
    expect(canonicalDateTime('2024-05-01T14:00:00')).toBeUndefined();
    expect(canonicalDateTime(0, true)).toBe('1970-01-01T00:00:00.000Z');
    expect(compareText('\u{1F600}', '\uFFFD')).toBeGreaterThan(0);
    expect(compareText('B', 'a')).toBeLessThan(0);
  });
});
