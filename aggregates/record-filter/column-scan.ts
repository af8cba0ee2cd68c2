import type { CompiledIndexRequest, CompiledSort, Condition, FieldType, Scalar } from './filter.compile.js';
import { effectiveSort, sortValueOf } from './filter.evaluate.js';
import { complementOf } from './filter.schema.js';
import { columnKey, foldedColumn, gramPostingsOf, type ObjectColumns, type RowOrder } from './object-columns.js';
import { rarestPosting } from './gram-postings.js';
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

const stringOps: Partial<Record<Condition['op'], (text: string, term: string) => boolean>> = {
  contains: (text, term) => text.includes(term),
  startsWith: (text, term) => text.startsWith(term),
  endsWith: (text, term) => text.endsWith(term),
};

/** Whether a row is in the request's archive scope (live rows only). */
function scopeTest(store: ObjectColumns, archived: CompiledIndexRequest['archived']): (row: number) => boolean {
  const { uuids } = store;
  const deleted = store.columns.get('@deletedAt')!;
  return (row) => {
    if (uuids[row] === null || uuids[row] === undefined) return false;
    const gone = deleted[row] !== null && deleted[row] !== undefined;
    return archived === 'include' || (archived === 'only') === gone;
  };
}

/** The rows in the request's archive scope, in row order. */
function scopeRows(store: ObjectColumns, archived: CompiledIndexRequest['archived']): { rows: Int32Array; count: number } {
  const n = store.uuids.length;
  const inScope = scopeTest(store, archived);
  const rows = new Int32Array(n);
  let count = 0;
  for (let row = 0; row < n; row++) if (inScope(row)) rows[count++] = row;
  return { rows, count };
}

/** A condition as a test of a row. */
function rowTest(store: ObjectColumns, c: Condition): (row: number) => boolean {
  const key = columnKey(c.field);
  const values = c.field.system && c.field.name === 'uuid' ? store.uuids : store.columns.get(key);
  if (!values) throw new Error(`column ${key} is not held`);
  const positive = complementOf[c.op] ?? c.op;
  const text = stringOps[positive];
  if (text && c.field.type !== 'json' && !(c.field.system && c.field.name === 'uuid')) {
    // The folded text kept with the column; a value that is not one string takes the general test.
    const folded = foldedColumn(store, key);
    const term = fold(String(c.value));
    const general = valueTest({ ...c, op: positive });
    const holds = (row: number) => {
      const f = folded[row];
      return f !== undefined ? text(f, term) : general(values[row]);
    };
    return positive === c.op ? holds : (row) => !holds(row);
  }
  const test = valueTest(c);
  if (c.op === 'equals' && c.field.type !== 'uuid' && c.field.type !== 'json') {
    // A scalar of the value's type equals it exactly when it is it; a list is tested in full.
    const v = c.value;
    return (row) => {
      const x = values[row];
      return x === v || (typeof x === 'object' && x !== null && test(x));
    };
  }
  return (row: number) => test(values[row]);
}

/** Cheap conditions first (they leave fewer rows for the text ones). */
const cost = (c: Condition) => (stringOps[complementOf[c.op] ?? c.op] ? 2 : c.op === 'equals' || c.op === 'in' ? 0 : 1);

/** The rows of `rows[0..count)` that pass `test`, moved to the front; their count. */
function narrow(rows: Int32Array, count: number, test: (row: number) => boolean): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const row = rows[i]!;
    if (test(row)) rows[kept++] = row;
  }
  return kept;
}

/** Whether a condition can take its candidates from gram postings: a positive text operator on a text column, a term of 2+ code units. */
function postingCondition(c: Condition): boolean {
  if (!stringOps[c.op] || c.field.type === 'json' || (c.field.system && c.field.name === 'uuid')) return false;
  return fold(String(c.value)).length >= 2;
}

/**
 * The rows in the archive scope that may hold a text condition, from the gram postings of its
 * column (gram-postings.ts): the term's rarest gram's rows (not changed since), then the rows
 * changed since and the rows holding no single string, tested. The posting rows are tested too
 * unless the condition is `contains` of the gram itself (two code units: each of its rows holds it).
 */
function postingRows(store: ObjectColumns, c: Condition, archived: CompiledIndexRequest['archived']): { rows: Int32Array; count: number } {
  const key = columnKey(c.field);
  const grams = gramPostingsOf(store, key);
  const term = fold(String(c.value));
  const posting = rarestPosting(grams, term)!;
  const inScope = scopeTest(store, archived);
  const holds = rowTest(store, c);
  const exact = c.op === 'contains' && term.length === 2;
  const { changed, others } = grams;
  const rows = new Int32Array(posting.length + others.length + changed.size);
  let count = 0;
  for (let i = 0; i < posting.length; i++) {
    const row = posting[i]!;
    if ((changed.size === 0 || !changed.has(row)) && inScope(row) && (exact || holds(row))) rows[count++] = row;
  }
  for (let i = 0; i < others.length; i++) {
    const row = others[i]!;
    if (!changed.has(row) && inScope(row) && holds(row)) rows[count++] = row;
  }
  for (const row of changed) if (inScope(row) && holds(row)) rows[count++] = row;
  return { rows, count };
}

/** The matching rows of a request (its scope, every `all` condition, one `anyOf` group). */
function matchingRows(store: ObjectColumns, request: Pick<CompiledIndexRequest, 'filter' | 'archived'>, postings: boolean): { rows: Int32Array; count: number } {
  const conditions = [...request.filter.all].sort((a, b) => cost(a) - cost(b));
  // A text condition with postings gives the candidates (and is settled by them); else the scope does.
  const seed = postings ? conditions.find(postingCondition) : undefined;
  let { rows, count } = seed ? postingRows(store, seed, request.archived) : scopeRows(store, request.archived);
  for (const c of conditions) if (c !== seed) count = narrow(rows, count, rowTest(store, c));
  if (request.filter.anyOf.length > 0) {
    const groups = request.filter.anyOf.map((g) => g.map((c) => rowTest(store, c)));
    count = narrow(rows, count, (row) => groups.some((g) => g.every((t) => t(row))));
  }
  return { rows, count };
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

/** The sorts a store keeps row orders for (least recently used out first). */
const MAX_ORDERS = 8;
/** Fewer matches than this are put in order among themselves; more, and the row order of the sort is walked. */
const FEW = 1000;

const sortName = (sort: readonly CompiledSort[]) => JSON.stringify(effectiveSort(sort).map((s) => [s.field.system, s.field.name, s.field.type, s.direction]));

/**
 * Brings every kept row order up to date with the rows changed since (their old places left,
 * their live rows merged in at their new ones): a pass over each order, not a sort of it.
 */
function settleOrders(store: ObjectColumns) {
  if (store.touched.size === 0) return;
  for (const [name, kept] of store.orders) {
    const cmp = rowOrder(store, kept.sort);
    const entering = [...store.touched].filter((row) => store.uuids[row] !== null).sort(cmp);
    const order = new Int32Array(kept.order.length - countIn(kept.order, store.touched) + entering.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < kept.order.length || j < entering.length) {
      if (i < kept.order.length && store.touched.has(kept.order[i]!)) {
        i++;
        continue;
      }
      if (j >= entering.length || (i < kept.order.length && cmp(kept.order[i]!, entering[j]!) <= 0)) order[k++] = kept.order[i++]!;
      else order[k++] = entering[j++]!;
    }
    store.orders.set(name, placed(kept.sort, order, store.uuids.length));
  }
  store.touched.clear();
}

const countIn = (order: Int32Array, rows: Set<number>) => {
  let n = 0;
  for (const row of order) if (rows.has(row)) n++;
  return n;
};

function placed(sort: readonly CompiledSort[], order: Int32Array, rows: number): RowOrder {
  const place = new Int32Array(rows).fill(-1);
  order.forEach((row, i) => (place[row] = i));
  return { sort, order, place };
}

/** The row order of a sort: kept, brought up to date, or made (a sort of every live row). */
export function rowOrderOf(store: ObjectColumns, sort: readonly CompiledSort[]): RowOrder {
  settleOrders(store);
  const name = sortName(sort);
  let kept = store.orders.get(name);
  if (kept) {
    store.orders.delete(name);
    store.orders.set(name, kept);
    return kept;
  }
  const live: number[] = [];
  store.uuids.forEach((u, row) => u !== null && live.push(row));
  kept = placed(sort, Int32Array.from(live.sort(rowOrder(store, sort))), store.uuids.length);
  store.orders.set(name, kept);
  if (store.orders.size > MAX_ORDERS) store.orders.delete(store.orders.keys().next().value!);
  return kept;
}

/** The total and the page's uuids of an index request (no free text, no relation) over an object's columns. */
export function scanColumns(
  store: ObjectColumns,
  request: Pick<CompiledIndexRequest, 'filter' | 'archived' | 'sort' | 'page' | 'limit'>,
  tuning: { few: number; postings?: boolean } = { few: FEW },
): { total: number; uuids: string[] } {
  const n = store.uuids.length;
  const { rows: matches, count: total } = matchingRows(store, request, tuning.postings ?? true);
  const start = pageOffset(request.page, request.limit);
  if (start >= total) return { total, uuids: [] };
  const end = Math.min(total, start + request.limit);
  let page: number[];
  if (total <= tuning.few && !store.orders.has(sortName(request.sort))) {
    page = firstRows(matches.subarray(0, total), end, rowOrder(store, request.sort)).slice(start);
  } else {
    const { order, place } = rowOrderOf(store, request.sort);
    if (total * 16 < n) {
      // Few matches for the object: their places, in order.
      const places = new Int32Array(total);
      for (let i = 0; i < total; i++) places[i] = place[matches[i]!]!;
      places.sort();
      page = Array.from(places.subarray(start, end), (p) => order[p]!);
    } else {
      // Many: walk the order, counting matches, until the page is passed.
      const hit = new Uint8Array(n);
      for (let i = 0; i < total; i++) hit[matches[i]!] = 1;
      page = [];
      let seen = 0;
      for (let p = 0; p < order.length && seen < end; p++) {
        const row = order[p]!;
        if (hit[row] === 0) continue;
        if (seen >= start) page.push(row);
        seen++;
      }
    }
  }
  return { total, uuids: page.map((row) => store.uuids[row]!) };
}

/** The column keys a request reads (its filter's and sort's fields), besides the base columns. */
export function requestColumns(request: Pick<CompiledIndexRequest, 'filter' | 'sort'>): string[] {
  const fields = [...request.filter.all, ...request.filter.anyOf.flat()].map((c) => c.field);
  const keys = [...fields, ...request.sort.map((s) => s.field)].filter((f) => !(f.system && f.name === 'uuid')).map(columnKey);
  return [...new Set(keys)];
}
