import { hasBit, type Bits } from './row-bits.js';
import { parseVector, readVector, tsRank, type ParsedVector, type Positions } from './text-rank.js';
import { finish, STEP, type Steps } from './steps.js';

/**
 * Text postings of an object's search vectors (the `@search` column: each row's `tsvector` in
 * its text form, read from PostgreSQL; ADR 0016): for each lexeme, the rows whose vector held it
 * when the postings were made, ascending, each with its positions. A plain query (one lexeme, or
 * an AND of lexemes: text-rank.ts) is matched by the rows of its rarest lexeme that hold the
 * others too (a binary search in their postings), and ranked from the positions found.
 *
 * Kept in step as gram postings are (gram-postings.ts): a row changed since they were made is
 * not trusted in them; its vector is parsed again (once, at its first use) and tested on its own.
 * When the changed rows pass a share of the rows, the postings are made again at their next use.
 * Flat typed arrays, not an array per lexeme: a lexeme costs a map entry and two numbers.
 */
export interface TextPostings {
  /** Lexeme (as the vector holds it: scoped to the object) to its number. */
  readonly ids: Map<string, number>;
  /** Lexeme number to its first entry; `first[id + 1]` ends its entries. */
  readonly first: Int32Array;
  /** Entry to its row (ascending within a lexeme). */
  readonly rows: Int32Array;
  /** Entry to its first position in `pos`; `at[entry + 1]` ends them. */
  readonly at: Int32Array;
  readonly pos: Uint16Array;
  /** Rows changed (or added) since they were made, with their vector parsed again (undefined until first used). */
  readonly changed: Map<number, ParsedVector | undefined>;
  /** Rows of the column when they were made. */
  readonly made: number;
}

const vectorOf = (v: unknown): ParsedVector | null => (typeof v === 'string' ? parseVector(v) : null);

/** An Int32Array / Uint16Array grown by doubling. */
function grown<T extends Int32Array | Uint16Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/**
 * The postings of a column of vectors (text forms; anything else holds no lexeme): the vectors
 * read once into flat entries (lexeme, row, first position), then placed lexeme by lexeme (a
 * counting sort, rows staying ascending). No array or map is made per row or per lexeme.
 */
export const makeTextPostings = (values: readonly unknown[]) => finish(makeTextPostingsSteps(values));

/** `makeTextPostings` in steps (steps.ts). */
export function* makeTextPostingsSteps(values: readonly unknown[]): Steps<TextPostings> {
  const ids = new Map<string, number>();
  let lexOf = new Int32Array(1 << 16);
  let rowOf = new Int32Array(1 << 16);
  let startOf = new Int32Array(1 << 16);
  let read = new Uint16Array(1 << 16);
  let entries = 0;
  let positions = 0;
  let counts = new Int32Array(1 << 12);
  let row = 0;
  const onLexeme = (lexeme: string) => {
    let id = ids.get(lexeme);
    if (id === undefined) {
      ids.set(lexeme, (id = ids.size));
      counts = grown(counts, ids.size);
    }
    counts[id]!++;
    if (entries === lexOf.length) {
      lexOf = grown(lexOf, entries + 1);
      rowOf = grown(rowOf, entries + 1);
      startOf = grown(startOf, entries + 1);
    }
    lexOf[entries] = id;
    rowOf[entries] = row;
    startOf[entries++] = positions;
  };
  const onPosition = (p: number) => {
    read = grown(read, positions + 1);
    read[positions++] = p;
  };
  for (; row < values.length; row++) {
    // A vector is read lexeme by lexeme (tens of them a record): a slice of STEP / 16 rows.
    if (row % (STEP >> 4) === 0) yield;
    const v = values[row];
    if (typeof v === 'string') readVector(v, onLexeme, onPosition);
  }
  const lexemes = ids.size;
  const first = new Int32Array(lexemes + 1);
  for (let id = 0; id < lexemes; id++) first[id + 1] = first[id]! + counts[id]!;
  const place = first.slice(0, lexemes);
  const order = new Int32Array(entries);
  for (let e = 0; e < entries; e++) {
    if (e % (STEP * 16) === 0) yield;
    order[place[lexOf[e]!]!++] = e;
  }
  const rows = new Int32Array(entries);
  const at = new Int32Array(entries + 1);
  const pos = new Uint16Array(positions);
  for (let k = 0; k < entries; k++) {
    if (k % (STEP * 4) === 0) yield;
    const e = order[k]!;
    rows[k] = rowOf[e]!;
    const from = startOf[e]!;
    const to = e + 1 < entries ? startOf[e + 1]! : positions;
    pos.set(read.subarray(from, to), at[k]!);
    at[k + 1] = at[k]! + (to - from);
  }
  return { ids, first, rows, at, pos, changed: new Map(), made: values.length };
}

/** Whether the postings are worth keeping as they are (else made again): few rows changed since. */
export const textPostingsFresh = (t: TextPostings, rows: number) => t.changed.size <= Math.max(64, rows >> 4);

/** The entry of `row` among a lexeme's entries, or -1. */
function entryOf(t: TextPostings, id: number, row: number): number {
  let lo = t.first[id]!;
  let hi = t.first[id + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const r = t.rows[mid]!;
    if (r === row) return mid;
    if (r < row) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

const positionsAt = (t: TextPostings, entry: number) => t.pos.subarray(t.at[entry]!, t.at[entry + 1]!);

/**
 * The rows of `within` whose vector holds every lexeme of a plain query (text-rank.ts
 * `plainQuery`: distinct, in rank order), and each one's `ts_rank` (`ranks[i]` of `rows[i]`).
 * `values`: the column, for the rows changed since the postings were made.
 */
export function textMatches(t: TextPostings, values: readonly unknown[], lexemes: readonly string[], within: Bits): { rows: number[]; ranks: number[] } {
  const rows: number[] = [];
  const ranks: number[] = [];
  const ids = lexemes.map((l) => t.ids.get(l) ?? -1);
  const size = (id: number) => (id < 0 ? 0 : t.first[id + 1]! - t.first[id]!);
  let rarest = 0;
  for (let i = 1; i < ids.length; i++) if (size(ids[i]!) < size(ids[rarest]!)) rarest = i;
  const seed = ids[rarest]!;
  if (seed >= 0) {
    const items: Positions[] = new Array(ids.length);
    for (let e = t.first[seed]!; e < t.first[seed + 1]!; e++) {
      const row = t.rows[e]!;
      if (!hasBit(within, row) || t.changed.has(row)) continue;
      let all = true;
      for (let i = 0; i < ids.length && all; i++) {
        const entry = i === rarest ? e : ids[i]! < 0 ? -1 : entryOf(t, ids[i]!, row);
        if (entry < 0) all = false;
        else items[i] = positionsAt(t, entry);
      }
      if (!all) continue;
      rows.push(row);
      ranks.push(tsRank(items));
    }
  }
  for (const [row, parsed] of t.changed) {
    if (!hasBit(within, row)) continue;
    let v = parsed;
    if (v === undefined) t.changed.set(row, (v = vectorOf(values[row]) ?? new Map()));
    const items = lexemes.map((l) => v.get(l));
    if (items.some((p) => p === undefined)) continue;
    rows.push(row);
    ranks.push(tsRank(items as Positions[]));
  }
  return { rows, ranks };
}

/** What the postings hold, in quarter cells (a 4-byte number each; a lexeme's map entry as 16; a changed row's vector as 16). */
export const textPostingsQuarters = (t: TextPostings) => t.first.length + t.rows.length * 2 + t.pos.length / 2 + t.ids.size * 16 + t.changed.size * 16;
