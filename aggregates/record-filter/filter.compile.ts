import { problems, type Problems } from '../kernel/problems.js';
import type { ErrorType } from '../kernel/errors.js';
import {
  complementOf,
  filterOperators,
  valuelessOperators,
  type ArchivedMode,
  type FilterGroups,
  type FilterItem,
  type FilterOperator,
  type RecordIndexRequest,
  type SortItem,
} from './filter.schema.js';
import { canonicalDate, canonicalDateTime, epochMillis } from './values.js';
import { isUuid } from '../kernel/uuid.js';

/**
 * The type of a field as the filter language sees it:
 * - text: strings (text, email, url, phone, select, rich text, a single linked uuid, ...);
 * - number; boolean;
 * - date: `YYYY-MM-DD`; datetime: canonical ISO 8601 UTC; timestamp: epoch ms (system fields);
 * - uuid: a lowercase uuid (system fields);
 * - list: an array of strings (multi-select, several linked records or files);
 * - json: any JSON (only the null / empty operators apply).
 */
export type FieldType = 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'timestamp' | 'uuid' | 'list' | 'json';

export interface FilterField {
  name: string;
  type: FieldType;
  /** A planner hint: the field takes few distinct values (a select, a checkbox), so equality on it selects many records. */
  fewValues?: boolean;
}

/** What a filter is checked against: the object's properties, and those of related objects by relation name. */
export interface FilterCatalog {
  properties: Readonly<Record<string, FilterField>>;
  relations?: Readonly<Record<string, { properties: Readonly<Record<string, FilterField>> }>>;
}

/** Fields every record has, outside its properties. */
export const systemFields: Readonly<Record<string, FilterField>> = {
  uuid: { name: 'uuid', type: 'uuid' },
  createdAt: { name: 'createdAt', type: 'timestamp' },
  updatedAt: { name: 'updatedAt', type: 'timestamp' },
  createdBy: { name: 'createdBy', type: 'uuid' },
  updatedBy: { name: 'updatedBy', type: 'uuid' },
};

export interface FieldRef extends FilterField {
  system: boolean;
  /** Set when the field is a property of the records connected through this relation. */
  relation?: string;
}

export type Scalar = string | number | boolean;

/** One condition with its key resolved and its value checked and normalised. */
export interface Condition {
  field: FieldRef;
  op: FilterOperator;
  /** A scalar; an array for in / notIn; [low, high] for between; undefined for the valueless operators. */
  value?: Scalar | Scalar[];
}

/** `all` AND together, and then at least one group of `anyOf` must hold (when there is any). */
export interface CompiledFilter {
  all: Condition[];
  anyOf: Condition[][];
}

export interface CompiledSort {
  field: FieldRef;
  direction: 'asc' | 'desc';
}

export interface CompiledIndexRequest {
  filter: CompiledFilter;
  /** Explicit sort keys; the engine adds `uuid asc` last, and `createdAt desc` when there are none. */
  sort: CompiledSort[];
  show?: string[];
  limit: number;
  page: number;
  query?: string;
  archived: ArchivedMode;
}

const textOps: FilterOperator[] = [...filterOperators];
const orderedOps: FilterOperator[] = ['equals', 'notEquals', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'notIn', ...valuelessOperators];
const listOps: FilterOperator[] = ['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'endsWith', 'in', 'notIn', ...valuelessOperators];

/** The closed set of operators each field type takes. */
export const operatorsFor: Readonly<Record<FieldType, readonly FilterOperator[]>> = {
  text: textOps,
  uuid: textOps,
  number: orderedOps,
  date: orderedOps,
  datetime: orderedOps,
  timestamp: orderedOps,
  boolean: ['equals', 'notEquals', 'in', 'notIn', ...valuelessOperators],
  list: listOps,
  json: [...valuelessOperators],
};

/** Types whose values can be sorted. */
export const sortableTypes: readonly FieldType[] = ['text', 'uuid', 'number', 'date', 'datetime', 'timestamp', 'boolean'];

const stringOps: ReadonlySet<FilterOperator> = new Set(['contains', 'notContains', 'startsWith', 'endsWith']);
const MAX_IN = 500;
const MAX_TEXT = 10_000;

interface Expect {
  check: (v: unknown) => Scalar | undefined;
  describe: string;
  type: ErrorType;
}

/** How one value of a field's type is checked and normalised. */
function expectFor(type: FieldType, op: FilterOperator): Expect {
  if (stringOps.has(op)) return { check: (v) => (typeof v === 'string' && v.length <= MAX_TEXT ? v : undefined), describe: 'a string', type: 'INVALID_VALUE' };
  switch (type) {
    case 'text':
    case 'list':
      return { check: (v) => (typeof v === 'string' && v.length <= MAX_TEXT ? v : undefined), describe: 'a string', type: 'INVALID_VALUE' };
    case 'uuid':
      return { check: (v) => (typeof v === 'string' && isUuid(v) ? v.toLowerCase() : undefined), describe: 'a uuid', type: 'INVALID_VALUE' };
    case 'number':
      return { check: (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined), describe: 'a number', type: 'INVALID_VALUE' };
    case 'boolean':
      return { check: (v) => (typeof v === 'boolean' ? v : undefined), describe: 'true or false', type: 'INVALID_VALUE' };
    case 'date':
      return { check: canonicalDate, describe: 'a date YYYY-MM-DD', type: 'INVALID_DATE' };
    case 'datetime':
      return { check: (v) => canonicalDateTime(v, true), describe: 'an ISO 8601 date-time with a zone (e.g. 2024-05-01T12:00:00Z) or epoch milliseconds', type: 'INVALID_DATE' };
    case 'timestamp':
      return { check: epochMillis, describe: 'epoch milliseconds or an ISO 8601 date-time with a zone', type: 'INVALID_DATE' };
    case 'json':
      return { check: () => undefined, describe: 'no value', type: 'INVALID_VALUE' };
  }
}

const known = (catalog: FilterCatalog) => [...Object.keys(systemFields), ...Object.keys(catalog.properties)];

function listHint(names: string[]) {
  return names.length > 30 ? `${names.slice(0, 30).join(', ')}, ...` : names.join(', ');
}

/**
 * Resolves a key: `properties.<name>` is always a property; a system field name is the system
 * field; then a property; then `<relation>.<property>` through a relation.
 */
export function resolveKey(catalog: FilterCatalog, key: string, relation?: string | null): FieldRef | undefined {
  if (relation) {
    const rel = catalog.relations?.[relation];
    if (!rel) return undefined;
    const name = key.startsWith('properties.') ? key.slice('properties.'.length) : key;
    const own = key.startsWith('properties.') ? undefined : systemFields[name];
    const f = own ?? (Object.hasOwn(rel.properties, name) ? rel.properties[name] : undefined);
    return f ? { ...f, system: own !== undefined, relation } : undefined;
  }
  if (key.startsWith('properties.')) {
    const name = key.slice('properties.'.length);
    return Object.hasOwn(catalog.properties, name) ? { ...catalog.properties[name]!, system: false } : undefined;
  }
  if (Object.hasOwn(systemFields, key)) return { ...systemFields[key]!, system: true };
  if (Object.hasOwn(catalog.properties, key)) return { ...catalog.properties[key]!, system: false };
  const dot = key.indexOf('.');
  if (dot > 0) return resolveKey(catalog, key.slice(dot + 1), key.slice(0, dot));
  return undefined;
}

function compileCondition(p: Problems, at: string, catalog: FilterCatalog, key: string, relation: string | null | undefined, op: FilterOperator, raw: unknown): Condition | undefined {
  const field = resolveKey(catalog, key, relation);
  if (!field) {
    if (relation && !catalog.relations?.[relation]) {
      const rels = Object.keys(catalog.relations ?? {});
      p.add(`${at}.relation`, `unknown relation "${relation}"`, rels.length ? `Use one of the object's relations: ${listHint(rels)}` : 'This object has no relations to filter through');
    } else {
      p.add(`${at}.key`, `unknown field "${relation ? `${relation}.` : ''}${key}"`, `Filter on a property or system field: ${listHint(relation ? Object.keys(catalog.relations?.[relation]?.properties ?? {}) : known(catalog))}`);
    }
    return undefined;
  }
  const allowed = operatorsFor[field.type];
  if (!allowed.includes(op)) {
    p.add(`${at}.operator`, `operator ${op} does not apply to ${key} (${field.type})`, `Use one of: ${allowed.join(', ')}`, 'INVALID_VALUE');
    return undefined;
  }
  if (valuelessOperators.includes(op)) return { field, op };
  const expect = expectFor(field.type, op);
  const one = (v: unknown, where: string): Scalar | undefined => {
    const out = v === null || v === undefined ? undefined : expect.check(v);
    if (out === undefined) p.add(where, `${key} ${op} needs ${expect.describe}, got ${v === undefined ? 'nothing' : JSON.stringify(v)?.slice(0, 80)}`, `Send value as ${expect.describe}`, expect.type);
    return out;
  };
  if (op === 'in' || op === 'notIn') {
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_IN) {
      p.add(`${at}.value`, `${op} needs a list of 1 to ${MAX_IN} values`, `Send value as an array of ${expect.describe}`, 'INVALID_VALUE');
      return undefined;
    }
    const values = raw.map((v, i) => one(v, `${at}.value.${i}`));
    return values.every((v) => v !== undefined) ? { field, op, value: values as Scalar[] } : undefined;
  }
  if (op === 'between') {
    if (!Array.isArray(raw) || raw.length !== 2) {
      p.add(`${at}.value`, 'between needs [low, high]', `Send value as a two-element array of ${expect.describe} (both ends included)`, 'INVALID_VALUE');
      return undefined;
    }
    const lo = one(raw[0], `${at}.value.0`);
    const hi = one(raw[1], `${at}.value.1`);
    return lo !== undefined && hi !== undefined ? { field, op, value: [lo, hi] } : undefined;
  }
  const value = one(raw, `${at}.value`);
  return value === undefined ? undefined : { field, op, value };
}

/** Compiles spec 2.1 filters (AND) and 2.4 groups (OR of ANDs) against a catalog; one 400 lists every problem. */
export function compileFilter(
  catalog: FilterCatalog,
  input: { filters?: readonly FilterItem[]; groups?: FilterGroups['groups']; at?: { filters: string; groups: string } },
  p: Problems = problems(),
): CompiledFilter {
  const at = input.at ?? { filters: 'body.filters', groups: 'body.groups' };
  const all = (input.filters ?? []).flatMap((f, i) => compileCondition(p, `${at.filters}.${i}`, catalog, f.key, undefined, f.operator, f.value) ?? []);
  const anyOf = (input.groups ?? []).map((g, gi) =>
    g.items.flatMap((item, ii) => compileCondition(p, `${at.groups}.${gi}.items.${ii}`, catalog, (item.property ?? item.key)!, item.relation, item.operator, item.value) ?? []),
  );
  p.throwIfAny('The filter has several problems');
  return { all, anyOf };
}

/** Compiles a whole index request; `extra` (a saved filter) ANDs with it. */
export function compileIndexRequest(catalog: FilterCatalog, request: RecordIndexRequest, extra?: CompiledFilter): CompiledIndexRequest {
  const p = problems();
  const groups = [...(request.groups ?? []), ...(request.filter?.groups ?? [])];
  let filter: CompiledFilter;
  try {
    filter = compileFilter(catalog, { filters: request.filters, groups, at: { filters: 'body.filters', groups: request.groups ? 'body.groups' : 'body.filter.groups' } }, p);
  } catch (err) {
    filter = { all: [], anyOf: [] };
    if (p.count === 0) throw err;
  }
  const sort = request.sort.flatMap((s: SortItem, i) => {
    const field = resolveKey(catalog, s.key);
    if (!field || field.relation) {
      p.add(`body.sort.${i}.key`, `cannot sort on "${s.key}"`, `Sort on a property or system field: ${listHint(known(catalog))}`);
      return [];
    }
    if (!sortableTypes.includes(field.type)) {
      p.add(`body.sort.${i}.key`, `${s.key} (${field.type}) cannot be sorted`, 'Sort on a text, number, date, boolean or system field');
      return [];
    }
    return [{ field, direction: s.direction }];
  });
  for (const [i, key] of (request.show ?? []).entries()) {
    const field = resolveKey(catalog, key);
    if (!field || field.relation) p.add(`body.show.${i}`, `unknown field "${key}"`, `Show properties or system fields: ${listHint(known(catalog))}`);
  }
  p.throwIfAny('The index request has several problems');
  const merged = extra ? { all: [...filter.all, ...extra.all], anyOf: filter.anyOf } : filter;
  // A saved filter's groups are one more OR-of-ANDs that must hold: AND it in by distributing.
  const anyOf = extra && extra.anyOf.length > 0 ? andGroups(merged.anyOf, extra.anyOf) : merged.anyOf;
  const query = request.query?.trim();
  return {
    filter: { all: merged.all, anyOf },
    sort,
    show: request.show ? request.show.map((k) => (k.startsWith('properties.') ? k.slice('properties.'.length) : k)) : undefined,
    limit: request.limit,
    page: request.page,
    query: query ? query : undefined,
    archived: request.archived,
  };
}

/** (A1 or A2) and (B1 or B2) = A1B1 or A1B2 or A2B1 or A2B2; an empty side means "true". */
function andGroups(a: Condition[][], b: Condition[][]): Condition[][] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return a.flatMap((x) => b.map((y) => [...x, ...y]));
}

/** The positive operator a negative one complements (undefined for a positive one). */
export const positiveOf = (op: FilterOperator) => complementOf[op];
