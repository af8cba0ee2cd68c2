import type { CompiledIndexRequest, CompiledSort, Condition } from '../../aggregates/record-filter/filter.compile.js';
import { sortValueOf } from '../../aggregates/record-filter/filter.evaluate.js';
import { columnKey, gramPostingsOf, SEARCH_COLUMN, textPostingsOf, type ObjectColumns } from './object-columns.js';
import { textMatches } from './text-postings.js';
import { rarestPosting } from './gram-postings.js';
import { fold } from '../../aggregates/record-filter/values.js';
import { cost, postingCondition, rowTest, scopeTest } from './row-tests.js';
import { bitsOfRows, popcount, wordsFor, type Bits } from './row-bits.js';
import { matchingBits, rowsOf } from './bits-scan.js';
import { compareSortValues, FEW, rowOrder, rowOrderOf, sortColumns, sortName } from './row-orders.js';
import { pageOffset } from '../../aggregates/kernel/paging.js';

/**
 * An index request answered from an object's columns (object-columns.ts): the matches found as a
 * row bitset (bits-scan.ts, ADR 0014) or as a list of rows narrowed condition by condition, then
 * counted, and only the page's rows put in order (a bounded heap of `offset + limit` rows, or a
 * walk of the sort's kept row order, not a sort of every match). The conditions are read as the
 * row tests (row-tests.ts) read them: the column-scan and row-bits property tests hold both ways
 * equal to `evaluateIndex`. Plain free text (one lexeme, or an AND of them: text-rank.ts) is
 * the rows of the text postings (text-postings.ts) in the filter's set, ranked as PostgreSQL
 * ranks them (ADR 0016); other free text and relations are not answered here (related records
 * are other objects' rows).
 */

/** The rows in the request's archive scope, in row order. */
function scopeRows(store: ObjectColumns, archived: CompiledIndexRequest['archived']): { rows: Int32Array; count: number } {
  const n = store.uuids.length;
  const inScope = scopeTest(store, archived);
  const rows = new Int32Array(n);
  let count = 0;
  for (let row = 0; row < n; row++) if (inScope(row)) rows[count++] = row;
  return { rows, count };
}

/** The rows of `rows[0..count)` that pass `test`, moved to the front; their count. */
function narrow(rows: Int32Array, count: number, test: (row: number) => boolean): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const row = rows[i]!;
    if (test(row)) rows[kept++] = row;
  }
  return kept;
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

/** The page's rows (`start` to `end` of the matches in the request's order); `rows` / `bits`: the matches as a list, as a set. */
function pageRows(store: ObjectColumns, sort: readonly CompiledSort[], few: number, total: number, start: number, end: number, rows: () => Int32Array, bits: () => Bits): number[] {
  if (total <= few && !store.orders.has(sortName(sort))) return firstRows(rows(), end, rowOrder(store, sort)).slice(start);
  const { order, place } = rowOrderOf(store, sort);
  if (total * 16 < store.uuids.length) {
    // Few matches for the object: their places, in order.
    const matches = rows();
    const places = new Int32Array(total);
    for (let i = 0; i < total; i++) places[i] = place[matches[i]!]!;
    places.sort();
    return Array.from(places.subarray(start, end), (p) => order[p]!);
  }
  // Many: walk the order, testing each row's bit, until the page is filled.
  const hit = bits();
  const page: number[] = [];
  let seen = 0;
  for (let p = 0; p < order.length && seen < end; p++) {
    const row = order[p]!;
    if (((hit[row >>> 5]! >>> (row & 31)) & 1) === 0) continue;
    if (seen >= start) page.push(row);
    seen++;
  }
  return page;
}

/**
 * The total and the page's uuids of an index request (no relation; free text only as `text`, the
 * distinct lexemes of a plain query: text-rank.ts `plainQuery`) over an object's columns: the
 * matches as a row bitset (bits-scan.ts, ADR 0014), or (`bits: false`) as a list of rows narrowed
 * condition by condition.
 */
export function scanColumns(
  store: ObjectColumns,
  request: Pick<CompiledIndexRequest, 'filter' | 'archived' | 'sort' | 'page' | 'limit'> & { text?: readonly string[] },
  tuning: { few: number; postings?: boolean; bits?: boolean } = { few: FEW },
): { total: number; uuids: string[] } {
  const postings = tuning.postings ?? true;
  let total: number;
  let rows: () => Int32Array;
  let bits: () => Bits;
  if (tuning.bits ?? true) {
    const set = matchingBits(store, request, postings);
    total = popcount(set);
    rows = () => rowsOf(set, total);
    bits = () => set;
  } else {
    const matches = matchingRows(store, request, postings);
    total = matches.count;
    rows = () => matches.rows.subarray(0, total);
    bits = () => bitsOfRows(rows(), wordsFor(store.uuids.length));
  }
  if (request.text) return scanText(store, request, request.text, bits(), tuning.few);
  const start = pageOffset(request.page, request.limit);
  if (start >= total) return { total, uuids: [] };
  const page = pageRows(store, request.sort, tuning.few, total, start, Math.min(total, start + request.limit), rows, bits);
  return { total, uuids: page.map((row) => store.uuids[row]!) };
}

/**
 * The rows of `set` that hold a plain query's lexemes, paged: in the request's sort, or with none
 * in rank order (desc), ties in the default order, as the SQL path orders them.
 */
function scanText(store: ObjectColumns, request: Pick<CompiledIndexRequest, 'sort' | 'page' | 'limit'>, lexemes: readonly string[], set: Bits, few: number) {
  const found = textMatches(textPostingsOf(store), store.columns.get(SEARCH_COLUMN)!, lexemes, set);
  const total = found.rows.length;
  const start = pageOffset(request.page, request.limit);
  if (start >= total) return { total, uuids: [] };
  const end = Math.min(total, start + request.limit);
  let page: number[];
  if (request.sort.length > 0) {
    const matches = Int32Array.from(found.rows);
    page = pageRows(store, request.sort, few, total, start, end, () => matches, () => bitsOfRows(matches, wordsFor(store.uuids.length)));
  } else {
    // Rank desc, then the default keys: each match's values read once, not at every comparison.
    const keys = sortColumns(store, []);
    const values = found.rows.map((row) => keys.map((k) => sortValueOf(k.field, k.values[row])));
    const order = (i: number, j: number) => {
      const c = found.ranks[j]! - found.ranks[i]!;
      if (c !== 0) return c;
      for (let n = 0; n < keys.length; n++) {
        const d = compareSortValues(keys[n]!, values[i]![n], values[j]![n]);
        if (d !== 0) return d;
      }
      return 0;
    };
    const at = new Int32Array(total);
    for (let i = 0; i < total; i++) at[i] = i;
    page = firstRows(at, end, order).slice(start).map((i) => found.rows[i]!);
  }
  return { total, uuids: page.map((row) => store.uuids[row]!) };
}

/** The column keys a request reads (its filter's and sort's fields, the search vectors for free text), besides the base columns. */
export function requestColumns(request: Pick<CompiledIndexRequest, 'filter' | 'sort'> & { text?: readonly string[] }): string[] {
  const fields = [...request.filter.all, ...request.filter.anyOf.flat()].map((c) => c.field);
  const keys = [...fields, ...request.sort.map((s) => s.field)].filter((f) => !(f.system && f.name === 'uuid')).map(columnKey);
  return [...new Set([...keys, ...(request.text ? [SEARCH_COLUMN] : [])])];
}
