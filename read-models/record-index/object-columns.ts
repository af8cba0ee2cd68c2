import type { CompiledSort, FieldRef } from '../../aggregates/record-filter/filter.compile.js';
import type { FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { fold } from '../../aggregates/record-filter/values.js';
import { gramPostingsFresh, makeGramPostingsSteps, type GramPostings } from './gram-postings.js';
import { makeTextPostingsSteps, textPostingsFresh, textPostingsQuarters, type TextPostings } from './text-postings.js';
import { enterRowBits, leaveRowBits, makeRowBitsSteps, makeValueBitsSteps, rowBitsWords, type RowBitsIndex, type ValueBits } from './row-bits.js';
import { finish, STEP, type Steps } from './steps.js';

/**
 * An object's records held column by column in memory: each record a row number, each field a
 * column of raw values (a property's stored JSON value, `undefined` when the record has none; a
 * system field's value). Which fields are held is chosen by the caller (the fields its requests
 * filter and sort by); `createdAt` and `deletedAt` always are (the default order and the archive
 * scope). Rows are changed in place by `putRecord` / `dropRecord`; a dropped row is free (its
 * uuid null) until a new record takes it, so a record keeps its row number while it is held.
 *
 * Five things are derived and kept in step: the case-folded text of a column that `contains` and
 * its kin read (`folded`), the gram postings of that text (`grams`, gram-postings.ts), the text
 * postings of the search vectors (`text`, text-postings.ts), the row
 * bitsets of the scope and of few-valued columns' values (`bits`, row-bits.ts), and the row
 * orders of the sorts asked for (`orders`, column-scan.ts), which take the rows changed since
 * they were last used (`touched`) at their next use.
 */
export interface ObjectColumns {
  /** Row number to record uuid (lowercase); null for a free row. */
  readonly uuids: (string | null)[];
  /** Record uuid to row number. */
  readonly rows: Map<string, number>;
  /** Free row numbers. */
  readonly free: number[];
  /** Column key (`columnKey`) to the column's values by row number. */
  readonly columns: Map<string, unknown[]>;
  /** Column key to the folded text of each row's value (undefined where the value is not one string). */
  readonly folded: Map<string, (string | undefined)[]>;
  /** Column key to the gram postings of its folded text (made at first use; changed rows noted in them). */
  readonly grams: Map<string, GramPostings>;
  /** Row orders by sort (column-scan.ts). */
  readonly orders: Map<string, RowOrder>;
  /** Rows changed since the orders were last brought up to date. */
  readonly touched: Set<number>;
  /** Row bitsets (made at first use, kept in step). */
  bits: RowBitsIndex | null;
  /** Text postings of the `@search` column (text-postings.ts; made at first use, changed rows noted in them). */
  text: TextPostings | null;
}

/** Every live row in one sort's order, and each row's place in it (-1: not in it). */
export interface RowOrder {
  sort: readonly CompiledSort[];
  order: Int32Array;
  place: Int32Array;
}

/** The column a field's values are in: a property by its name, a system field as `@name`. */
export const columnKey = (field: Pick<FieldRef, 'name' | 'system'>) => (field.system ? `@${field.name}` : field.name);

/** The columns every object's store holds: what the archive scope and the default order read. */
export const baseColumns = ['@createdAt', '@deletedAt'] as const;

export function emptyColumns(keys: readonly string[]): ObjectColumns {
  return {
    uuids: [],
    rows: new Map(),
    free: [],
    columns: new Map([...new Set([...baseColumns, ...keys])].map((k) => [k, []])),
    folded: new Map(),
    grams: new Map(),
    orders: new Map(),
    touched: new Set(),
    bits: null,
    text: null,
  };
}

/** A record's value for a column key. */
export function recordValue(record: Omit<FilterableRecord, 'related'>, key: string): unknown {
  if (key.startsWith('@')) return (record as unknown as Record<string, unknown>)[key.slice(1)] ?? null;
  return Object.hasOwn(record.properties, key) ? record.properties[key] : undefined;
}

const foldedOf = (v: unknown) => (typeof v === 'string' ? fold(v) : undefined);

/** The folded text of a column, computed at first use and kept in step after. */
export const foldedColumn = (store: ObjectColumns, key: string) => store.folded.get(key) ?? finish(foldedColumnSteps(store, key));

/** `foldedColumn` in steps (steps.ts). */
export function* foldedColumnSteps(store: ObjectColumns, key: string): Steps<(string | undefined)[]> {
  const kept = store.folded.get(key);
  if (kept) return kept;
  const values = store.columns.get(key)!;
  const folded = new Array<string | undefined>(values.length);
  for (let row = 0; row < values.length; row++) {
    if (row % STEP === 0) yield;
    folded[row] = foldedOf(values[row]);
  }
  store.folded.set(key, folded);
  return folded;
}

/** Whether a column's gram postings are held and fresh (else `gramPostingsOf` makes them). */
export const gramPostingsHeld = (store: ObjectColumns, key: string) => {
  const grams = store.grams.get(key);
  return grams !== undefined && gramPostingsFresh(grams, store.uuids.length);
};

/** The gram postings of a column's folded text: kept, or made (again, when many rows changed since). */
export const gramPostingsOf = (store: ObjectColumns, key: string): GramPostings =>
  gramPostingsHeld(store, key) ? store.grams.get(key)! : finish(gramPostingsOfSteps(store, key));

/** `gramPostingsOf` in steps (steps.ts). */
export function* gramPostingsOfSteps(store: ObjectColumns, key: string): Steps<GramPostings> {
  if (gramPostingsHeld(store, key)) return store.grams.get(key)!;
  const folded = yield* foldedColumnSteps(store, key);
  const grams = yield* makeGramPostingsSteps(folded, store.columns.get(key)!);
  store.grams.set(key, grams);
  return grams;
}

/** The column of each row's search vector (its text form): held only for free-text requests. */
export const SEARCH_COLUMN = '@search';

/** Whether the search column's text postings are held and fresh (else `textPostingsOf` makes them). */
export const textPostingsHeld = (store: ObjectColumns) => store.text !== null && textPostingsFresh(store.text, store.uuids.length);

/** The text postings of the search column: kept, or made (again, when many rows changed since). */
export const textPostingsOf = (store: ObjectColumns): TextPostings => (textPostingsHeld(store) ? store.text! : finish(textPostingsOfSteps(store)));

/** `textPostingsOf` in steps (steps.ts). */
export function* textPostingsOfSteps(store: ObjectColumns): Steps<TextPostings> {
  if (!textPostingsHeld(store)) store.text = yield* makeTextPostingsSteps(store.columns.get(SEARCH_COLUMN)!);
  return store.text!;
}

/** The row bitsets of the store's scope: kept, or made. */
export const rowBitsOf = (store: ObjectColumns): RowBitsIndex => store.bits ?? finish(rowBitsOfSteps(store));

/** `rowBitsOf` in steps (steps.ts). */
export function* rowBitsOfSteps(store: ObjectColumns): Steps<RowBitsIndex> {
  store.bits ??= yield* makeRowBitsSteps(store.uuids, store.columns.get('@deletedAt')!);
  return store.bits;
}

/** A column's value bitsets: kept, or made; null when the column has too many values for them. */
export const valueBitsOf = (store: ObjectColumns, key: string): ValueBits | null => {
  const kept = store.bits?.values.get(key);
  return kept !== undefined ? kept : finish(valueBitsOfSteps(store, key));
};

/** Whether a column's value bitsets were tried (made, or found too many: null). */
export const valueBitsTried = (store: ObjectColumns, key: string) => store.bits?.values.has(key) ?? false;

/** `valueBitsOf` in steps (steps.ts). */
export function* valueBitsOfSteps(store: ObjectColumns, key: string): Steps<ValueBits | null> {
  const index = yield* rowBitsOfSteps(store);
  let sets = index.values.get(key);
  if (sets === undefined) {
    sets = yield* makeValueBitsSteps(index, store.columns.get(key)!);
    index.values.set(key, sets);
  }
  return sets;
}

/** Sets a record's row (taking a free one, or a new one, when the record is new) to the record's values. */
export function putRecord(store: ObjectColumns, record: Omit<FilterableRecord, 'related'>) {
  const uuid = record.uuid.toLowerCase();
  let row = store.rows.get(uuid);
  if (row === undefined) {
    row = store.free.pop() ?? store.uuids.length;
    store.uuids[row] = uuid;
    store.rows.set(uuid, row);
  }
  const valueOf = (key: string) => store.columns.get(key)![row];
  if (store.bits) leaveRowBits(store.bits, row, valueOf);
  for (const [key, values] of store.columns) values[row] = recordValue(record, key);
  if (store.bits) enterRowBits(store.bits, row, uuid, valueOf);
  for (const [key, folded] of store.folded) folded[row] = foldedOf(store.columns.get(key)![row]);
  for (const grams of store.grams.values()) grams.changed.add(row);
  store.text?.changed.set(row, undefined);
  if (store.orders.size > 0) store.touched.add(row);
}

/** Frees a record's row. */
export function dropRecord(store: ObjectColumns, uuid: string) {
  const row = store.rows.get(uuid.toLowerCase());
  if (row === undefined) return;
  store.rows.delete(uuid.toLowerCase());
  store.uuids[row] = null;
  if (store.bits) {
    leaveRowBits(store.bits, row, (key) => store.columns.get(key)![row]);
    enterRowBits(store.bits, row, null, () => undefined);
  }
  for (const values of store.columns.values()) values[row] = undefined;
  for (const folded of store.folded.values()) folded[row] = undefined;
  for (const grams of store.grams.values()) grams.changed.add(row);
  store.text?.changed.set(row, undefined);
  store.free.push(row);
  if (store.orders.size > 0) store.touched.add(row);
}

/**
 * How many values the store holds (rows times columns, the uuids counted as one): what its memory
 * bound counts. A 4-byte number (a gram posting's row number, a bitset's word, a gram's kept
 * bitset's word) counts as a quarter of a cell; a row order (a row and a place per row) as one.
 */
export function cellsOf(store: ObjectColumns): number {
  let quarters = (store.bits ? rowBitsWords(store.bits) : 0) + (store.text ? textPostingsQuarters(store.text) : 0);
  for (const g of store.grams.values()) {
    quarters += g.entries + g.others.length;
    for (const b of g.bits.values()) quarters += b.length;
  }
  return store.uuids.length * (store.columns.size + store.folded.size + 1 + store.orders.size) + Math.ceil(quarters / 4);
}
