import type { CompiledIndexRequest, Condition } from '../../aggregates/record-filter/filter.compile.js';
import { complementOf } from '../../aggregates/record-filter/filter.schema.js';
import { columnKey, gramPostingsOf, rowBitsOf, valueBitsOf, type ObjectColumns } from './object-columns.js';
import { termBits } from './gram-postings.js';
import { andInto, andNotInto, forEachRow, hasBit, keepRows, orInto, setBit, type Bits, type RowBitsIndex } from './row-bits.js';
import { cost, postingCondition, rowTest, typedTest, valueTest } from './row-tests.js';
import { fold } from '../../aggregates/record-filter/values.js';

/**
 * The matches of an index request as a row bitset (row-bits.ts, ADR 0014): the archive scope's
 * kept set, then each condition ANDed in. `equals` / `in` and their negations on a column of few
 * values take the kept sets of the values (an OR, then an AND or an AND-NOT); a positive text
 * condition of two or more code units takes the AND of its grams' bitsets (gram-postings.ts);
 * every other condition, and the `anyOf` groups, test the rows still in the set (row-tests.ts).
 * No row list and no mark array is made; the total is a popcount.
 */

/** Whether a condition may take a column's value sets: equality on a field compared as it is (not a uuid, not JSON). */
export const valueSetCondition = (c: Condition) => {
  const op = complementOf[c.op] ?? c.op;
  return (op === 'equals' || op === 'in') && c.field.type !== 'uuid' && c.field.type !== 'json' && !(c.field.system && c.field.name === 'uuid');
};

/** Kept sets first (word operations), then the tests, cheapest first. */
const rank = (c: Condition) => (valueSetCondition(c) ? 0 : postingCondition(c) ? 1 : 2 + cost(c));

/** ANDs (or AND-NOTs, for a negation) an equality's rows into `set`; false when the column keeps no value sets. */
function andValueSets(store: ObjectColumns, index: RowBitsIndex, c: Condition, set: Bits): boolean {
  const sets = valueBitsOf(store, columnKey(c.field));
  if (!sets) return false;
  const positive = complementOf[c.op] ?? c.op;
  const typed = typedTest(c.field.type);
  const wanted = positive === 'in' ? (c.value as unknown[]) : [c.value];
  const rows = new Uint32Array(index.words);
  for (const v of wanted) {
    const b = typed(v) ? sets.byValue.get(v) : undefined;
    if (b) orInto(rows, b);
  }
  // Lists and objects: their atoms decide (the general test), for the rows still in the set.
  const test = valueTest({ ...c, op: positive });
  const values = store.columns.get(columnKey(c.field))!;
  forEachRow(sets.others, (row) => {
    if (hasBit(set, row) && test(values[row])) setBit(rows, row);
  });
  if (positive === c.op) andInto(set, rows);
  else andNotInto(set, rows);
  return true;
}

/** ANDs a positive text condition (a term of 2+ code units) into `set` through its column's gram postings. */
function andPostings(store: ObjectColumns, index: RowBitsIndex, c: Condition, set: Bits) {
  const grams = gramPostingsOf(store, columnKey(c.field));
  const term = fold(String(c.value));
  const holds = rowTest(store, c);
  // Rows changed since the postings were made, and rows of no single string: tested on their own.
  const own: number[] = [];
  for (const row of grams.changed) if (hasBit(set, row)) own.push(row);
  for (const row of grams.others) if (hasBit(set, row)) own.push(row);
  const candidates = termBits(grams, term, index.words);
  for (const row of grams.changed) candidates[row >>> 5]! &= ~(1 << (row & 31));
  andInto(set, candidates);
  // A posting row holds `contains` of its gram itself; any other term is tested.
  if (!(c.op === 'contains' && term.length === 2)) keepRows(set, holds);
  for (const row of own) if (holds(row)) setBit(set, row);
}

/** The rows (in the request's archive scope) that match the request's filter. */
export function matchingBits(store: ObjectColumns, request: Pick<CompiledIndexRequest, 'filter' | 'archived'>, postings: boolean): Bits {
  const index = rowBitsOf(store);
  const set = index.live.slice();
  if (request.archived === 'exclude') andNotInto(set, index.archived);
  else if (request.archived === 'only') andInto(set, index.archived);
  const conditions = [...request.filter.all].sort((a, b) => rank(a) - rank(b));
  for (const c of conditions) {
    if (valueSetCondition(c) && andValueSets(store, index, c, set)) continue;
    if (postings && postingCondition(c)) andPostings(store, index, c, set);
    else keepRows(set, rowTest(store, c));
  }
  if (request.filter.anyOf.length > 0) {
    const groups = request.filter.anyOf.map((g) => g.map((c) => rowTest(store, c)));
    keepRows(set, (row) => groups.some((g) => g.every((t) => t(row))));
  }
  return set;
}

/** The rows of a set (`count` of them), ascending. */
export function rowsOf(set: Bits, count: number): Int32Array {
  const rows = new Int32Array(count);
  let i = 0;
  forEachRow(set, (row) => (rows[i++] = row));
  return rows;
}
