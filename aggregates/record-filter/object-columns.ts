import type { FieldRef } from './filter.compile.js';
import type { FilterableRecord } from './filter.evaluate.js';

/**
 * An object's records held column by column in memory: each record a row number, each field a
 * column of raw values (a property's stored JSON value, `undefined` when the record has none; a
 * system field's value). Which fields are held is chosen by the caller (the fields its requests
 * filter and sort by); `createdAt` and `deletedAt` always are (the default order and the archive
 * scope). Rows are changed in place by `putRecord` / `dropRecord`; their order means nothing.
 */
export interface ObjectColumns {
  /** Row number to record uuid (lowercase). */
  readonly uuids: string[];
  /** Record uuid to row number. */
  readonly rows: Map<string, number>;
  /** Column key (`columnKey`) to the column's values by row number. */
  readonly columns: Map<string, unknown[]>;
}

/** The column a field's values are in: a property by its name, a system field as `@name`. */
export const columnKey = (field: Pick<FieldRef, 'name' | 'system'>) => (field.system ? `@${field.name}` : field.name);

/** The columns every object's store holds: what the archive scope and the default order read. */
export const baseColumns = ['@createdAt', '@deletedAt'] as const;

export function emptyColumns(keys: readonly string[]): ObjectColumns {
  return { uuids: [], rows: new Map(), columns: new Map([...new Set([...baseColumns, ...keys])].map((k) => [k, []])) };
}

/** A record's value for a column key. */
export function recordValue(record: Omit<FilterableRecord, 'related'>, key: string): unknown {
  if (key.startsWith('@')) return (record as unknown as Record<string, unknown>)[key.slice(1)] ?? null;
  return Object.hasOwn(record.properties, key) ? record.properties[key] : undefined;
}

/** Sets a record's row (added when new) to the record's values. */
export function putRecord(store: ObjectColumns, record: Omit<FilterableRecord, 'related'>) {
  const uuid = record.uuid.toLowerCase();
  let row = store.rows.get(uuid);
  if (row === undefined) {
    row = store.uuids.length;
    store.uuids.push(uuid);
    store.rows.set(uuid, row);
  }
  for (const [key, values] of store.columns) values[row] = recordValue(record, key);
}

/** Removes a record's row (the last row takes its number). */
export function dropRecord(store: ObjectColumns, uuid: string) {
  const row = store.rows.get(uuid.toLowerCase());
  if (row === undefined) return;
  const last = store.uuids.length - 1;
  store.rows.delete(uuid.toLowerCase());
  if (row !== last) {
    const moved = store.uuids[last]!;
    store.uuids[row] = moved;
    store.rows.set(moved, row);
    for (const values of store.columns.values()) values[row] = values[last];
  }
  store.uuids.pop();
  for (const values of store.columns.values()) values.pop();
}

/** How many values the store holds (rows times columns, the uuids counted as one): what its memory bound counts. */
export const cellsOf = (store: ObjectColumns) => store.uuids.length * (store.columns.size + 1);
