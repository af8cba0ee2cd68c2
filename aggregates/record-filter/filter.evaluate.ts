import type { CompiledFilter, CompiledIndexRequest, CompiledSort, Condition, FieldRef, FieldType, Scalar } from './filter.compile.js';
import { complementOf } from './filter.schema.js';
import { compareText, fold, isPlainObject } from './values.js';
import { pageOffset } from '../kernel/paging.js';

/** A record as the evaluator sees it: plain values, and optionally its related records by relation name. */
export interface FilterableRecord {
  uuid: string;
  createdAt: number;
  updatedAt: number;
  createdBy?: string | null;
  updatedBy?: string | null;
  deletedAt?: number | null;
  properties: Readonly<Record<string, unknown>>;
  /** Records connected through each relation (only needed by relation conditions). */
  related?: Readonly<Record<string, readonly Omit<FilterableRecord, 'related'>[]>>;
}

type Plain = Omit<FilterableRecord, 'related'>;

function rawValue(field: FieldRef, record: Plain): unknown {
  if (field.system) return (record as unknown as Record<string, unknown>)[field.name];
  return Object.hasOwn(record.properties, field.name) ? record.properties[field.name] : undefined;
}

/**
 * The atoms of a value: what the operators look at. Missing and null give none; a list gives its
 * non-null scalar elements; any other value is one atom. A condition on a relation looks at the
 * atoms of every connected record.
 */
function atomsOf(field: FieldRef, value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (field.type === 'json') return [value];
  if (Array.isArray(value)) return value.filter((x) => x !== null && typeof x !== 'object');
  return [value];
}

function atoms(field: FieldRef, record: FilterableRecord): unknown[] {
  if (!field.relation) return atomsOf(field, rawValue(field, record));
  return (record.related?.[field.relation] ?? []).flatMap((r) => atomsOf(field, rawValue(field, r)));
}

const numeric = (t: FieldType) => t === 'number' || t === 'timestamp';

/** Whether an atom has the field's value type (others never match a valued operator). */
function typed(type: FieldType, a: unknown): boolean {
  if (numeric(type)) return typeof a === 'number';
  if (type === 'boolean') return typeof a === 'boolean';
  if (type === 'json') return false;
  return typeof a === 'string';
}

function compare(type: FieldType, a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return compareText(String(a), String(b));
}

const equal = (type: FieldType, a: Scalar, b: Scalar) => (type === 'uuid' ? String(a).toLowerCase() === b : a === b);

function emptyJson(v: unknown) {
  return v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

function holds(c: Condition, record: FilterableRecord): boolean {
  const positive = complementOf[c.op];
  if (positive) return !holds({ ...c, op: positive }, record);
  const { type } = c.field;
  const all = atoms(c.field, record);
  if (c.op === 'isnotnull') return all.length > 0;
  if (c.op === 'isnotempty') return all.some((a) => (type === 'json' ? !emptyJson(a) : a !== ''));
  const values = all.filter((a) => typed(type, a)) as Scalar[];
  const v = c.value as Scalar;
  switch (c.op) {
    case 'equals':
      return values.some((a) => equal(type, a, v));
    case 'in':
      return values.some((a) => (c.value as Scalar[]).some((x) => equal(type, a, x)));
    case 'contains':
      return values.some((a) => fold(String(a)).includes(fold(String(v))));
    case 'startsWith':
      return values.some((a) => fold(String(a)).startsWith(fold(String(v))));
    case 'endsWith':
      return values.some((a) => fold(String(a)).endsWith(fold(String(v))));
    case 'gt':
      return values.some((a) => compare(type, a, v) > 0);
    case 'gte':
      return values.some((a) => compare(type, a, v) >= 0);
    case 'lt':
      return values.some((a) => compare(type, a, v) < 0);
    case 'lte':
      return values.some((a) => compare(type, a, v) <= 0);
    case 'between': {
      const [lo, hi] = c.value as [Scalar, Scalar];
      return values.some((a) => compare(type, a, lo) >= 0 && compare(type, a, hi) <= 0);
    }
    default:
      return false;
  }
}

/** Whether a record matches a compiled filter: every `all` condition, and one `anyOf` group if there are groups. */
export function evaluateFilter(filter: CompiledFilter, record: FilterableRecord): boolean {
  if (!filter.all.every((c) => holds(c, record))) return false;
  return filter.anyOf.length === 0 || filter.anyOf.some((group) => group.every((c) => holds(c, record)));
}

/** The value a record sorts by on a field: a scalar of the field's type, or null (sorted last either way). */
export function sortValue(field: FieldRef, record: Plain): Scalar | null {
  return sortValueOf(field, rawValue(field, record));
}

/** The sort value of a field's raw value (a property's stored value, a system column's). */
export function sortValueOf(field: FieldRef, v: unknown): Scalar | null {
  return v !== null && v !== undefined && typed(field.type, v) ? (field.type === 'uuid' ? String(v).toLowerCase() : (v as Scalar)) : null;
}

/** The sort keys the engine applies: the request's, or `createdAt desc`; then `uuid asc` as the final tie-break. */
export function effectiveSort(sort: readonly CompiledSort[]): CompiledSort[] {
  const keys = sort.length > 0 ? [...sort] : [{ field: { name: 'createdAt', type: 'timestamp' as const, system: true }, direction: 'desc' as const }];
  return [...keys, { field: { name: 'uuid', type: 'uuid', system: true }, direction: 'asc' }];
}

/** A record's sort keys: its value of each key of `effectiveSort(sort)`, in order (the last is its uuid). */
export type SortKeys = readonly (Scalar | null)[];

export function sortKeys(sort: readonly CompiledSort[], record: Plain): SortKeys {
  return effectiveSort(sort).map((s) => sortValue(s.field, record));
}

/** Orders two records' sort keys (of the same `sort`): missing values last in both directions. */
export function compareSortKeys(sort: readonly CompiledSort[], a: SortKeys, b: SortKeys): number {
  const keys = effectiveSort(sort);
  for (let i = 0; i < keys.length; i++) {
    const { field, direction } = keys[i]!;
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? 1 : -1;
    }
    const c = compare(field.type, x, y);
    if (c !== 0) return direction === 'desc' ? -c : c;
  }
  return 0;
}

/** Orders two records by the sort keys: missing values last in both directions. */
export function compareRecords(sort: readonly CompiledSort[], a: Plain, b: Plain): number {
  return compareSortKeys(sort, sortKeys(sort, a), sortKeys(sort, b));
}

/** Whether a record is in the archive scope of a request. */
export function inArchiveScope(mode: CompiledIndexRequest['archived'], record: Plain): boolean {
  const archived = record.deletedAt !== null && record.deletedAt !== undefined;
  return mode === 'include' || (mode === 'only' ? archived : !archived);
}

/**
 * The whole index request in memory: scope, filter, sort and page. What the SQL engine must
 * return, except the free-text `query` (ranked by the database), which this ignores.
 */
export function evaluateIndex<R extends FilterableRecord>(request: CompiledIndexRequest, records: readonly R[]): { total: number; rows: R[] } {
  const matching = records.filter((r) => inArchiveScope(request.archived, r) && evaluateFilter(request.filter, r));
  matching.sort((a, b) => compareRecords(request.sort, a, b));
  const start = pageOffset(request.page, request.limit);
  return { total: matching.length, rows: matching.slice(start, start + request.limit) };
}
