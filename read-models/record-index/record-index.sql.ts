import type { CompiledFilter, CompiledIndexRequest, CompiledSort, Condition, FieldRef, Scalar } from '../../aggregates/record-filter/filter.compile.js';
import { effectiveSort } from '../../aggregates/record-filter/filter.evaluate.js';
import { complementOf } from '../../aggregates/record-filter/filter.schema.js';
import { fold } from '../../aggregates/record-filter/values.js';
import { escapeLike } from '../list-spec.js';

/** How a relation named in a filter is walked: its uuid, and which end of it the filtered records sit at. */
export interface RelationPath {
  relationUuid: string;
  side: 'origin' | 'target';
  /** The object at the relation's other end (its pivot keys are that object's). */
  otherObjectUuid: string;
}

/**
 * Builds SQL over `records r` (one object context) from a compiled request. Every value is a
 * parameter; keys only ever become SQL as quoted literals of property names the catalog knows, so
 * no client text reaches the SQL. Each predicate is NULL-safe, so NOT is the exact complement the
 * in-memory evaluator uses.
 */
export function sqlBuilder(initial: readonly unknown[], relations: Readonly<Record<string, RelationPath>> = {}, keys: ReadonlyMap<string, number> = new Map()) {
  const params = [...initial];

  function arg(value: unknown, cast = ''): string {
    params.push(value);
    return `$${params.length}${cast}`;
  }

  /** A property name as a SQL literal (names are identifiers; quotes doubled regardless). */
  function lit(name: string) {
    return `'${name.replace(/'/g, "''")}'`;
  }

  function systemColumn(alias: string, field: FieldRef) {
    switch (field.name) {
      case 'uuid':
        return `${alias}.uuid`;
      case 'createdAt':
        return `${alias}.created_at`;
      case 'updatedAt':
        return `${alias}.updated_at`;
      case 'createdBy':
        return `${alias}.created_by`;
      case 'updatedBy':
        return `${alias}.updated_by`;
    }
    throw new Error(`unknown system field ${field.name}`);
  }

  /** A scalar property's typed value (NULL when missing or of another JSON type). */
  function typedValue(alias: string, field: FieldRef) {
    const v = `${alias}.vals -> ${lit(field.name)}`;
    switch (field.type) {
      case 'number':
        return `(case when jsonb_typeof(${v}) = 'number' then (${v})::float8 end)`;
      case 'boolean':
        return `(case when jsonb_typeof(${v}) = 'boolean' then (${v})::boolean end)`;
      default:
        return `(case when jsonb_typeof(${v}) = 'string' then ${alias}.vals ->> ${lit(field.name)} end) collate "C"`;
    }
  }

  /** A field's raw value on `alias`'s row: a system column, or the property's stored JSON value. */
  function rawExpression(alias: string, field: FieldRef) {
    return field.system ? systemColumn(alias, field) : `${alias}.vals -> ${lit(field.name)}`;
  }

  /** The expression a field sorts by (NULL when the record has no value). */
  function sortExpression(alias: string, field: FieldRef) {
    return field.system ? systemColumn(alias, field) : typedValue(alias, field);
  }

  function like(kind: 'contains' | 'startsWith' | 'endsWith', term: string) {
    const esc = escapeLike(fold(term));
    return kind === 'startsWith' ? `${esc}%` : kind === 'contains' ? `%${esc}%` : `%${esc}`;
  }

  function compare(expr: string, op: string, value: Scalar, field: FieldRef) {
    const cast = field.type === 'number' ? '::float8' : field.type === 'timestamp' ? '::int8' : field.type === 'boolean' ? '::boolean' : field.type === 'uuid' ? '::uuid' : '::text collate "C"';
    return `coalesce(${expr} ${op} ${arg(value, cast)}, false)`;
  }

  /** A positive condition on a system field of `alias`. */
  function systemPositive(alias: string, c: Condition): string {
    const col = systemColumn(alias, c.field);
    const text = c.field.type === 'uuid' ? `${col}::text` : col;
    switch (c.op) {
      case 'isnotnull':
      case 'isnotempty':
        return `(${col} is not null)`;
      case 'equals':
        return compare(col, '=', c.value as Scalar, c.field);
      case 'in':
        return `coalesce(${col} = any(${arg(c.value, c.field.type === 'uuid' ? '::uuid[]' : '::int8[]')}), false)`;
      case 'contains':
      case 'startsWith':
      case 'endsWith':
        return `coalesce(lower(${text}) like ${arg(like(c.op, String(c.value)))}, false)`;
      case 'gt':
        return compare(col, '>', c.value as Scalar, c.field);
      case 'gte':
        return compare(col, '>=', c.value as Scalar, c.field);
      case 'lt':
        return compare(col, '<', c.value as Scalar, c.field);
      case 'lte':
        return compare(col, '<=', c.value as Scalar, c.field);
      case 'between': {
        const [lo, hi] = c.value as Scalar[];
        return `(${compare(col, '>=', lo!, c.field)} and ${compare(col, '<=', hi!, c.field)})`;
      }
    }
    throw new Error(`no SQL for ${c.op}`);
  }

  /** The pivot key of a property of the object `objectParam` (an init plan: resolved once per query). */
  function fid(objectParam: string, name: string) {
    // The request's own object ($2): its key as a literal when known (field-keys.ts).
    const known = objectParam === '$2' ? keys.get(name) : undefined;
    if (known !== undefined) return String(Math.trunc(known));
    return `(select f.fid from record_fields f where f.tenant = $1 and f.object_uuid = ${objectParam}::uuid and f.name = ${lit(name)})`;
  }

  /** `alias`'s row has a pivot atom of the property satisfying `cond` (over `v`): an index probe or scan of the pivot. */
  function pivot(alias: string, objectOf: () => string, name: string, cond: string) {
    return `${alias}.rid in (select v.rid from record_values v where v.fid = ${fid(objectOf(), name)} and ${cond})`;
  }

  /**
   * A positive condition on a property of `alias` in the object `objectParam`. Equality, ranges
   * and text matching go through the pivot (its indexes); where the pivot keeps only a prefix
   * (text beyond 200 characters) the record's own value decides exactly.
   */
  function propertyPositive(alias: string, c: Condition, objectOf: () => string, rowOnly = false): string {
    const name = c.field.name;
    const key = lit(name);
    const v = `${alias}.vals -> ${key}`;
    const list = c.field.type === 'list';
    const numeric = c.field.type === 'number' || c.field.type === 'boolean';
    const pivotValue = (x: Scalar) => (numeric ? arg(typeof x === 'boolean' ? Number(x) : x, '::float8') : `left(${arg(x, '::text')}, 200) collate "C"`);
    const pivotExact = (x: Scalar) => numeric || (typeof x === 'string' && x.length < 200);
    const exact = (x: Scalar) => `${alias}.vals @> ${arg(JSON.stringify({ [name]: list ? [x] : x }), '::jsonb')}`;
    switch (c.op) {
      case 'isnotnull':
        return list ? `coalesce(jsonb_typeof(${v}) = 'array' and jsonb_array_length(${v}) > 0, false)` : `(${alias}.vals ? ${key})`;
      case 'isnotempty':
        if (list) return `coalesce(jsonb_typeof(${v}) = 'array' and exists (select 1 from jsonb_array_elements_text(${v}) e where e <> ''), false)`;
        if (c.field.type === 'json') return `coalesce(${v} not in ('""'::jsonb, '[]'::jsonb, '{}'::jsonb), false)`;
        return `coalesce(${v} <> '""'::jsonb, false)`;
      case 'equals': {
        const x = c.value as Scalar;
        if (rowOnly) return exact(x);
        const probe = pivot(alias, objectOf, name, `v.${numeric ? 'n' : 't'} = ${pivotValue(x)}`);
        // The pivot keeps 200 characters: a shorter value is decided there exactly (and a check
        // on the row would only shrink the planner's estimate by a guess).
        return pivotExact(x) ? probe : `(${probe} and ${exact(x)})`;
      }
      case 'in': {
        const xs = c.value as Scalar[];
        if (rowOnly) return `(${xs.map(exact).join(' or ')})`;
        const inPivot = numeric ? `v.n = any(${arg(xs.map(Number), '::float8[]')})` : `v.t = any(${arg(xs.map((x) => String(x).slice(0, 200)), '::text[]')}::text[] collate "C")`;
        if (xs.every(pivotExact)) return pivot(alias, objectOf, name, inPivot);
        return `(${pivot(alias, objectOf, name, inPivot)} and (${xs.map(exact).join(' or ')}))`;
      }
      case 'contains':
      case 'startsWith':
      case 'endsWith':
        // The trigrams of exactly that property. A term of one or two characters has none, so the
        // property's pivot rows are read with the check: migration 0022 dropped the gram index
        // (0019) that looked them up, whose keys were the largest share of a write's index work
        // (docs/records.md, ADR 0005).
        return pivot(alias, objectOf, name, `v.tf like ${arg(like(c.op, String(c.value)))}`);
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
      case 'between': {
        const [lo, hi] = c.op === 'between' ? (c.value as Scalar[]) : [c.value as Scalar, c.value as Scalar];
        const low = c.op === 'gt' || c.op === 'gte' || c.op === 'between';
        const high = c.op === 'lt' || c.op === 'lte' || c.op === 'between';
        const col = numeric ? 'v.n' : 'v.t';
        // Numbers, booleans, dates and date-times are whole in the pivot: its range is exact.
        const whole = numeric || c.field.type === 'date' || c.field.type === 'datetime';
        // On text the pivot's prefix order bounds the full order (>= / <= prefixes); the value decides.
        const bounds = [
          ...(low ? [`${col} ${whole && c.op === 'gt' ? '>' : '>='} ${pivotValue(lo!)}`] : []),
          ...(high ? [`${col} ${whole && c.op === 'lt' ? '<' : '<='} ${pivotValue(hi!)}`] : []),
        ].join(' and ');
        if (whole) return pivot(alias, objectOf, name, bounds);
        const e = typedValue(alias, c.field);
        const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
        const check = c.op === 'between' ? `(${compare(e, '>=', lo!, c.field)} and ${compare(e, '<=', hi!, c.field)})` : compare(e, op[c.op], lo!, c.field);
        return `(${pivot(alias, objectOf, name, bounds)} and ${check})`;
      }
    }
    throw new Error(`no SQL for ${c.op}`);
  }

  function positive(alias: string, c: Condition, objectParam: string, rowOnly = false): string {
    if (c.field.relation) {
      const path = relations[c.field.relation];
      if (!path) throw new Error(`relation ${c.field.relation} has no path`);
      const [self, other] = path.side === 'origin' ? ['from_record', 'to_record'] : ['to_record', 'from_record'];
      let otherParam: string | undefined;
      const inner = c.field.system ? systemPositive('o', c) : propertyPositive('o', c, () => (otherParam ??= arg(path.otherObjectUuid, '::uuid')));
      return `exists (select 1 from rm_record_links l join records o on o.tenant = l.tenant and o.uuid = l.${other} and o.is_primary and o.deleted_at is null
        where l.tenant = ${alias}.tenant and l.relation_uuid = ${arg(path.relationUuid, '::uuid')} and l.${self} = ${alias}.uuid and l.connected and ${inner})`;
    }
    return c.field.system ? systemPositive(alias, c) : propertyPositive(alias, c, () => objectParam, rowOnly);
  }

  function condition(alias: string, c: Condition, objectParam: string, driven = false): string {
    const complemented = complementOf[c.op];
    if (complemented) return `not ${positive(alias, { ...c, op: complemented }, objectParam)}`;
    // Equality on a field of few values, next to a condition that finds fewer records: checked
    // on the rows that one finds, not through the pivot (which would visit many entries).
    return positive(alias, c, objectParam, driven && c.field.fewValues === true && !c.field.relation);
  }

  const drives = (c: Condition) => !c.field.relation && !c.field.fewValues && !complementOf[c.op] && !['isnotnull', 'isnotempty'].includes(c.op) && (!c.field.system || c.field.name === 'uuid');

  function filter(alias: string, f: CompiledFilter, objectParam: string): string[] {
    const driven = f.all.some(drives);
    const where = f.all.map((c) => condition(alias, c, objectParam, driven));
    if (f.anyOf.length > 0) {
      const group = (g: Condition[]) => `(${g.map((c) => condition(alias, c, objectParam, driven || g.some(drives))).join(' and ')})`;
      where.push(`(${f.anyOf.map((g) => (g.length === 0 ? 'true' : group(g))).join(' or ')})`);
    }
    return where;
  }

  function orderBy(alias: string, sort: readonly CompiledSort[]): string {
    return effectiveSort(sort)
      .map((s) => `${sortExpression(alias, s.field)} ${direction(s)}`)
      .join(', ');
  }
  return { params, arg, sortExpression, rawExpression, condition, filter, orderBy };
}

export type SqlBuilder = ReturnType<typeof sqlBuilder>;

/** A free-text query (websearch syntax) whose lexemes carry the object's key, as its rows' do (migration 0006). */
export const textQuery = (object: string, query: string) => `scoped_tsquery(${object}::uuid, websearch_to_tsquery('simple', ${query}))`;

/** Columns that are never NULL: no NULLS LAST, so that their index's own order serves the sort. */
const notNull = new Set(['uuid', 'createdAt', 'updatedAt']);

/** `asc` / `desc`, with missing values last (what the in-memory evaluator does). */
export const direction = (s: CompiledSort) => (s.field.system && notNull.has(s.field.name) ? s.direction : `${s.direction} nulls last`);

export function archivedClause(alias: string, mode: CompiledIndexRequest['archived']) {
  return mode === 'include' ? 'true' : mode === 'only' ? `${alias}.deleted_at is not null` : `${alias}.deleted_at is null`;
}
