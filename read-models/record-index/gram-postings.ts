import { andInto, bitsOfRows, wordsFor } from './row-bits.js';
import { finish, STEP, type Steps } from './steps.js';

/**
 * Gram postings of a folded text column (object-columns.ts): for each pair of adjacent UTF-16
 * code units (a gram) of the folded values, the rows whose folded value held it when the postings
 * were made, ascending. A positive `contains` / `startsWith` / `endsWith` of a term of two or more
 * code units can only hold for a row whose folded value has every gram of the term, so the rows
 * of the term's rarest gram are its candidates: the scan reads them instead of every row
 * (column-scan.ts). For a term of exactly two code units a posting row (unchanged since) holds it
 * without a test.
 *
 * Kept in step cheaply: a row changed after the postings were made (`changed`) is not trusted in
 * them and is a candidate of every term, tested against its value; when the changed rows pass a
 * share of the rows, the postings are made again at their next use. Rows whose value was not one
 * string (a list, say: its items may hold the term) are candidates of every term too (`others`).
 */
export interface GramPostings {
  /** Gram (first code unit << 16 | second) to its rows, ascending. */
  readonly postings: Map<number, Int32Array>;
  /** Rows whose value was neither one string nor missing when made (tested against their value). */
  readonly others: Int32Array;
  /** Rows changed (or added) since they were made. */
  readonly changed: Set<number>;
  /** Rows of the column when they were made. */
  readonly rows: number;
  /** Row numbers held in `postings`: what their memory is counted by. */
  readonly entries: number;
  /** The bitsets of the grams asked for lately (row-bits.ts; made from their postings, at most MAX_GRAM_BITS). */
  readonly bits: Map<number, Uint32Array>;
}

/** The grams whose bitsets a column's postings keep (least recently used out first). */
const MAX_GRAM_BITS = 16;

const gramAt = (text: string, i: number) => (text.charCodeAt(i) << 16) | text.charCodeAt(i + 1);

/** The postings of a column's folded values (`values`: the raw values, for the rows that are not one string). */
export const makeGramPostings = (folded: readonly (string | undefined)[], values: readonly unknown[]) => finish(makeGramPostingsSteps(folded, values));

/** `makeGramPostings` in steps (steps.ts). */
export function* makeGramPostingsSteps(folded: readonly (string | undefined)[], values: readonly unknown[]): Steps<GramPostings> {
  const ids = new Map<number, number>();
  const counts: number[] = [];
  const last: number[] = [];
  const others: number[] = [];
  // Pass 1: each gram's number of rows (a row counted once per gram: `last` is the last row seen).
  for (let row = 0; row < folded.length; row++) {
    if (row % STEP === 0) yield;
    const text = folded[row];
    if (text === undefined) {
      const v = values[row];
      if (v !== undefined && v !== null) others.push(row);
      continue;
    }
    for (let i = 0; i + 1 < text.length; i++) {
      const gram = gramAt(text, i);
      let id = ids.get(gram);
      if (id === undefined) {
        id = counts.length;
        ids.set(gram, id);
        counts.push(0);
        last.push(-1);
      }
      if (last[id] !== row) {
        last[id] = row;
        counts[id]!++;
      }
    }
  }
  // Pass 2: the rows, ascending.
  const lists = counts.map((c) => new Int32Array(c));
  const filled = new Int32Array(counts.length);
  last.fill(-1);
  let entries = 0;
  for (let row = 0; row < folded.length; row++) {
    if (row % STEP === 0) yield;
    const text = folded[row];
    if (text === undefined) continue;
    for (let i = 0; i + 1 < text.length; i++) {
      const id = ids.get(gramAt(text, i))!;
      if (last[id] === row) continue;
      last[id] = row;
      lists[id]![filled[id]!++] = row;
      entries++;
    }
  }
  const postings = new Map<number, Int32Array>();
  for (const [gram, id] of ids) postings.set(gram, lists[id]!);
  return { postings, others: Int32Array.from(others), changed: new Set(), rows: folded.length, entries, bits: new Map() };
}

/**
 * The rows whose folded value held every gram of a term (folded, two or more code units) when the
 * postings were made, as a bitset of `words` words: the AND of the grams' kept bitsets. The
 * changed rows and `others` are the caller's to test.
 */
export function termBits(g: GramPostings, term: string, words: number): Uint32Array {
  const out = new Uint32Array(words);
  for (let i = 0; i + 1 < term.length; i++) {
    const gram = gramAt(term, i);
    const rows = g.postings.get(gram);
    if (!rows) return out.fill(0);
    let b = g.bits.get(gram);
    if (b) g.bits.delete(gram);
    else b = bitsOfRows(rows, wordsFor(g.rows));
    g.bits.set(gram, b);
    if (g.bits.size > MAX_GRAM_BITS) g.bits.delete(g.bits.keys().next().value!);
    if (i === 0) out.set(b.length <= words ? b : b.subarray(0, words));
    else andInto(out, b);
  }
  return out;
}

/** Whether the postings are worth keeping as they are (else made again): few rows changed since. */
export const gramPostingsFresh = (g: GramPostings, rows: number) => g.changed.size <= Math.max(64, rows >> 4);

/** The posting rows of a term's rarest gram (a term of two or more code units, folded), or null for a shorter term. */
export function rarestPosting(g: GramPostings, term: string): Int32Array | null {
  if (term.length < 2) return null;
  let best: Int32Array | undefined;
  for (let i = 0; i + 1 < term.length; i++) {
    const rows = g.postings.get(gramAt(term, i));
    if (!rows) return new Int32Array(0);
    if (!best || rows.length < best.length) best = rows;
  }
  return best!;
}
