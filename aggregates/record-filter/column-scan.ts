import type { CompiledIndexRequest, CompiledSort, Condition, FieldType, Scalar } from './filter.compile.js';
import { effectiveSort, sortValueOf } from './filter.evaluate.js';
import { complementOf } from './filter.schema.js';
import { columnKey, type ObjectColumns } from './object-columns.js';
import { compareText, fold, isPlainObject } from './values.js';
import { pageOffset } from '../kernel/paging.js';

/**
 * An index request answered from an object's columns (object-columns.ts): every row checked
 * against the filter, the matches counted, and only the page's rows put in order (a bounded
 * heap of `offset + limit` rows, not a sort of every match). The same semantics as
 * `evaluateIndex` (filter.evaluate.ts), written per column so that a row costs no allocation:
 * the column-scan property test holds the two equal. Free text and relations are not answered
 * here (the database ranks text; related records are other objects' rows).
 */

const numeric = (t: FieldType) => t === 'number' || t === 'timestamp';

/** Whether one atom (a scalar of a value) has the field's type: as `typed` in filter.evaluate.ts. */
function typedTest(type: FieldType): (a: unknown) => boolean {
  if (numeric(type)) return (a) => typeof a === 'number';
  if (type === 'boolean') return (a) => typeof a === 'boolean';
  if (type === 'json') return () => false;
  return (a) => typeof a === 'string';
}

function compareTo(type: FieldType, v: Scalar): (a: Scalar) => number {
  if (typeof v === 'number') return (a) => (typeof a === 'number' ? a - v : compareText(String(a), String(v)));
  if (typeof v === 'boolean') return (a) => (typeof a === 'boolean' ? Number(a) - Number(v) : compareText(String(a), String(v)));
  const text = String(v);
  return (a) => compareText(String(a), text);
}

/** The test of one atom of a valued operator (its type checked). */
function atomTest(c: Condition): (a: unknown) => boolean {
  const { type } = c.field;
  const typed = typedTest(type);
  const v = c.value as Scalar;
  const same = type === 'uuid' ? (a: unknown) => String(a).toLowerCase() : (a: unknown) => a;
  switch (c.op) {
    case 'equals':
      return (a) => typed(a) && same(a) === v;
    case 'in': {
      const set = new Set(c.value as Scalar[]);
      return (a) => typed(a) && set.has(same(a) as Scalar);
    }
    case 'contains': {
      const term = fold(String(v));
      return (a) => typed(a) && fold(String(a)).includes(term);
    }
    case 'startsWith': {
      const term = fold(String(v));
      return (a) => typed(a) && fold(String(a)).startsWith(term);
    }
    case 'endsWith': {
      const term = fold(String(v));
      return (a) => typed(a) && fold(String(a)).endsWith(term);
    }
    case 'gt': {
      const cmp = compareTo(type, v);
      return (a) => typed(a) && cmp(a as Scalar) > 0;
    }
    case 'gte': {
      const cmp = compareTo(type, v);
      return (a) => typed(a) && cmp(a as Scalar) >= 0;
    }
    case 'lt': {
      const cmp = compareTo(type, v);
      return (a) => typed(a) && cmp(a as Scalar) < 0;
    }
    case 'lte': {
      const cmp = compareTo(type, v);
      return (a) => typed(a) && cmp(a as Scalar) <= 0;
    }
    case 'between': {
      const [lo, hi] = c.value as [Scalar, Scalar];
      const low = compareTo(type, lo);
      const high = compareTo(type, hi);
      return (a) => typed(a) && low(a as Scalar) >= 0 && high(a as Scalar) <= 0;
    }
    default:
      return () => false;
  }
}

const scalar = (x: unknown) => x !== null && typeof x !== 'object';

function emptyJson(v: unknown) {
  return v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/** A condition as a test of a raw value (a column's cell), as `holds` reads a record's atoms. */
export function valueTest(c: Condition): (v: unknown) => boolean {
  const positive = complementOf[c.op];
  if (positive) {
    const test = valueTest({ ...c, op: positive });
    return (v) => !test(v);
  }
  const { type } = c.field;
  const json = type === 'json';
  if (c.op === 'isnotnull') return (v) => v !== null && v !== undefined && (json || !Array.isArray(v) || v.some(scalar));
  if (c.op === 'isnotempty') {
    if (json) return (v) => v !== null && v !== undefined && !emptyJson(v);
    return (v) => (Array.isArray(v) ? v.some((x) => scalar(x) && x !== '') : v !== null && v !== undefined && v !== '');
  }
  const test = atomTest(c);
  if (json) return () => false;
  // A list's atoms are its scalars; `test` checks the type, which no null or object has.
  return (v) => (Array.isArray(v) ? v.some(test) : test(v));
}

/** A row test for a filter (every `all` condition, then one `anyOf` group when there are any). */
function rowTest(store: ObjectColumns, request: Pick<CompiledIndexRequest, 'filter' | 'archived'>): (row: number) => boolean {
  const cell = (c: Condition) => {
    const values = c.field.system && c.field.name === 'uuid' ? store.uuids : store.columns.get(columnKey(c.field));
    if (!values) throw new Error(`column ${columnKey(c.field)} is not held`);
    const test = valueTest(c);
    return (row: number) => test(values[row]);
  };
  const all = request.filter.all.map(cell);
  const groups = request.filter.anyOf.map((g) => g.map(cell));
  const deleted = store.columns.get('@deletedAt')!;
  const mode = request.archived;
  const inScope = mode === 'include' ? () => true : mode === 'only' ? (row: number) => deleted[row] !== null && deleted[row] !== undefined : (row: number) => deleted[row] === null || deleted[row] === undefined;
  return (row) => {
    if (!inScope(row)) return false;
    for (const t of all) if (!t(row)) return false;
    if (groups.length === 0) return true;
    return groups.some((g) => g.every((t) => t(row)));
  };
}

/** Orders two rows as `compareSortKeys` orders their sort keys (missing values last either way; uuid last). */
export function rowOrder(store: ObjectColumns, sort: readonly CompiledSort[]): (a: number, b: number) => number {
  const keys = effectiveSort(sort).map(({ field, direction }) => {
    const values = field.system && field.name === 'uuid' ? store.uuids : store.columns.get(columnKey(field));
    if (!values) throw new Error(`column ${columnKey(field)} is not held`);
    const sign = direction === 'desc' ? -1 : 1;
    const text = !numeric(field.type) && field.type !== 'boolean';
    return { values, sign, field, text };
  });
  return (a, b) => {
    for (const k of keys) {
      const x = sortValueOf(k.field, k.values[a]);
      const y = sortValueOf(k.field, k.values[b]);
      if (x === null || y === null) {
        if (x === y) continue;
        return x === null ? 1 : -1;
      }
      const c = k.text ? compareText(String(x), String(y)) : Number(x) - Number(y);
      if (c !== 0) return k.sign * c;
    }
    return 0;
  };
}

/** The `k` first rows of `rows` in `order`, in order: a bounded max-heap, so most rows cost one comparison. */
export function firstRows(rows: Int32Array, k: number, order: (a: number, b: number) => number): number[] {
  if (k <= 0) return [];
  if (rows.length <= k * 2) return Array.from(rows).sort(order).slice(0, k);
  const heap: number[] = [];
  const worse = (i: number, j: number) => order(heap[i]!, heap[j]!) > 0;
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(i, p)) return;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < heap.length && worse(l, top)) top = l;
      if (r < heap.length && worse(r, top)) top = r;
      if (top === i) return;
      [heap[i], heap[top]] = [heap[top]!, heap[i]!];
      i = top;
    }
  };
  for (const row of rows) {
    if (heap.length < k) {
      heap.push(row);
      up(heap.length - 1);
    } else if (order(row, heap[0]!) < 0) {
      heap[0] = row;
      down(0);
    }
  }
  return heap.sort(order);
}

/** The total and the page's uuids of an index request (no free text, no relation) over an object's columns. */
export function scanColumns(store: ObjectColumns, request: Pick<CompiledIndexRequest, 'filter' | 'archived' | 'sort' | 'page' | 'limit'>): { total: number; uuids: string[] } {
  const test = rowTest(store, request);
  const n = store.uuids.length;
  const matches = new Int32Array(n);
  let total = 0;
  for (let row = 0; row < n; row++) if (test(row)) matches[total++] = row;
  const start = pageOffset(request.page, request.limit);
  if (start >= total) return { total, uuids: [] };
  const first = firstRows(matches.subarray(0, total), start + request.limit, rowOrder(store, request.sort));
  return { total, uuids: first.slice(start).map((row) => store.uuids[row]!) };
}

/** The column keys a request reads (its filter's and sort's fields), besides the base columns. */
export function requestColumns(request: Pick<CompiledIndexRequest, 'filter' | 'sort'>): string[] {
  const fields = [...request.filter.all, ...request.filter.anyOf.flat()].map((c) => c.field);
  const keys = [...fields, ...request.sort.map((s) => s.field)].filter((f) => !(f.system && f.name === 'uuid')).map(columnKey);
  return [...new Set(keys)];
}
