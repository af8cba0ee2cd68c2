import { finish, STEP, type Steps } from './steps.js';

/**
 * Row bitsets: a set of an object's rows (object-columns.ts) as a `Uint32Array` of words, the bit
 * `row & 31` of word `row >>> 5` set when the row is in it. A condition's set is an AND / OR /
 * AND-NOT of kept sets word by word, a total is a popcount, and a page's walk of a row order tests
 * one bit per row (bits-scan.ts, ADR 0014).
 *
 * Kept per store (`RowBitsIndex`, made at first use, kept in step by `putRecord` / `dropRecord`):
 * the live rows, the archived ones, and for a column of few distinct values the rows of each
 * scalar value (`ValueBits`), which answer `equals` / `in` (and their negations) with no row read.
 * All of a store's sets have one length, grown together (doubled) when a row passes it.
 */
export type Bits = Uint32Array;

/** A column's rows by scalar value; rows holding a list or an object are in `others` (tested). */
export interface ValueBits {
  readonly byValue: Map<unknown, Bits>;
  others: Bits;
}

export interface RowBitsIndex {
  /** Words in every set of the index. */
  words: number;
  live: Bits;
  archived: Bits;
  /** Column key to its value sets; null when the column has too many values for them. */
  readonly values: Map<string, ValueBits | null>;
}

/** The most distinct values a column keeps sets for (past it, equality reads the rows). */
export const MAX_VALUE_SETS = 64;

export const wordsFor = (rows: number) => (rows + 31) >>> 5;
export const hasBit = (b: Bits, row: number) => ((b[row >>> 5]! >>> (row & 31)) & 1) === 1;
export const setBit = (b: Bits, row: number) => void (b[row >>> 5]! |= 1 << (row & 31));
export const clearBit = (b: Bits, row: number) => void (b[row >>> 5]! &= ~(1 << (row & 31)));

/** `a &= b` (`b` may be shorter: its missing words are empty). */
export function andInto(a: Bits, b: Bits) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) a[i]! &= b[i]!;
  a.fill(0, n);
}

/** `a |= b`. */
export function orInto(a: Bits, b: Bits) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) a[i]! |= b[i]!;
}

/** `a &= ~b`. */
export function andNotInto(a: Bits, b: Bits) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) a[i]! &= ~b[i]!;
}

function popcount32(x: number) {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The number of rows in a set. */
export function popcount(b: Bits): number {
  let n = 0;
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) n += popcount32(b[i]!);
  return n;
}

/** Calls `f` with each row of a set, ascending (empty words skipped). */
export function forEachRow(b: Bits, f: (row: number) => void) {
  for (let w = 0; w < b.length; w++) {
    let x = b[w]!;
    while (x !== 0) {
      const low = x & -x;
      f((w << 5) + 31 - Math.clz32(low));
      x ^= low;
    }
  }
}

/** Keeps the rows of a set that pass `test`. */
export function keepRows(b: Bits, test: (row: number) => boolean) {
  for (let w = 0; w < b.length; w++) {
    let x = b[w]!;
    let kept = x;
    while (x !== 0) {
      const low = x & -x;
      if (!test((w << 5) + 31 - Math.clz32(low))) kept ^= low;
      x ^= low;
    }
    b[w] = kept;
  }
}

/** A set of the rows given (a posting list, say), `words` long. */
export function bitsOfRows(rows: ArrayLike<number>, words: number): Bits {
  const b = new Uint32Array(words);
  for (let i = 0; i < rows.length; i++) setBit(b, rows[i]!);
  return b;
}

const isScalar = (v: unknown) => v === null || v === undefined || typeof v !== 'object';
const grow = (b: Bits, words: number) => {
  const g = new Uint32Array(words);
  g.set(b);
  return g;
};

/** The index of a store's rows: its live and archived rows (`deleted`: the `@deletedAt` column). */
export const makeRowBits = (uuids: readonly (string | null)[], deleted: readonly unknown[]) => finish(makeRowBitsSteps(uuids, deleted));

/** `makeRowBits` in steps (steps.ts). */
export function* makeRowBitsSteps(uuids: readonly (string | null)[], deleted: readonly unknown[]): Steps<RowBitsIndex> {
  const words = Math.max(1, wordsFor(uuids.length));
  const index: RowBitsIndex = { words, live: new Uint32Array(words), archived: new Uint32Array(words), values: new Map() };
  for (let row = 0; row < uuids.length; row++) {
    if (row % STEP === 0) yield;
    placeRow(index, row, uuids[row] ?? null, deleted[row]);
  }
  return index;
}

/** A column's value sets, made from its values; null past MAX_VALUE_SETS values. */
export const makeValueBits = (index: RowBitsIndex, values: readonly unknown[]) => finish(makeValueBitsSteps(index, values));

/** `makeValueBits` in steps (steps.ts). */
export function* makeValueBitsSteps(index: RowBitsIndex, values: readonly unknown[]): Steps<ValueBits | null> {
  const sets: ValueBits = { byValue: new Map(), others: new Uint32Array(index.words) };
  for (let row = 0; row < values.length; row++) {
    if (row % STEP === 0) yield;
    if (!addValue(index, sets, row, values[row])) return null;
  }
  return sets;
}

function addValue(index: RowBitsIndex, sets: ValueBits, row: number, v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (!isScalar(v)) {
    setBit(sets.others, row);
    return true;
  }
  let b = sets.byValue.get(v);
  if (!b) {
    if (sets.byValue.size >= MAX_VALUE_SETS) return false;
    b = new Uint32Array(index.words);
    sets.byValue.set(v, b);
  }
  setBit(b, row);
  return true;
}

function removeValue(sets: ValueBits, row: number, v: unknown) {
  if (v === null || v === undefined) return;
  const b = isScalar(v) ? sets.byValue.get(v) : sets.others;
  if (b) clearBit(b, row);
}

/** Makes every set of the index at least long enough for `row`. */
function reach(index: RowBitsIndex, row: number) {
  if (row < index.words << 5) return;
  let words = index.words;
  while (row >= words << 5) words *= 2;
  index.words = words;
  index.live = grow(index.live, words);
  index.archived = grow(index.archived, words);
  for (const sets of index.values.values()) {
    if (!sets) continue;
    sets.others = grow(sets.others, words);
    for (const [v, b] of sets.byValue) sets.byValue.set(v, grow(b, words));
  }
}

function placeRow(index: RowBitsIndex, row: number, uuid: string | null, deletedAt: unknown) {
  reach(index, row);
  if (uuid === null) clearBit(index.live, row);
  else setBit(index.live, row);
  if (uuid !== null && deletedAt !== null && deletedAt !== undefined) setBit(index.archived, row);
  else clearBit(index.archived, row);
}

/** Takes a row out of the value sets it is in (before its values change; `valueOf`: a column's value now). */
export function leaveRowBits(index: RowBitsIndex, row: number, valueOf: (key: string) => unknown) {
  for (const [key, sets] of index.values) if (sets) removeValue(sets, row, valueOf(key));
}

/**
 * Puts a row in the sets of its values (after they changed; a dropped row has uuid null and no
 * values). A column that passes MAX_VALUE_SETS values loses its sets (null: equality reads its
 * rows from then on).
 */
export function enterRowBits(index: RowBitsIndex, row: number, uuid: string | null, valueOf: (key: string) => unknown) {
  placeRow(index, row, uuid, valueOf('@deletedAt'));
  for (const [key, sets] of index.values) if (sets && !addValue(index, sets, row, valueOf(key))) index.values.set(key, null);
}

/** The words the index holds (what the store's memory bound counts). */
export function rowBitsWords(index: RowBitsIndex): number {
  let sets = 2;
  for (const v of index.values.values()) if (v) sets += 1 + v.byValue.size;
  return sets * index.words;
}
