import type { CompiledSort } from '../../aggregates/record-filter/filter.compile.js';
import { effectiveSort, sortValueOf } from '../../aggregates/record-filter/filter.evaluate.js';
import { compareText } from '../../aggregates/record-filter/values.js';
import { columnKey, type ObjectColumns, type RowOrder } from './object-columns.js';
import { numeric } from './row-tests.js';
import { finish, sortSteps, type Steps } from './steps.js';

/**
 * Row orders (ADR 0006): how two rows of an object's columns compare in a sort (as
 * `compareSortKeys` compares records), and every live row in a sort's order, kept per store (at
 * most MAX_ORDERS sorts), brought up to date with the rows changed since, made in steps (ADR 0019).
 */

export type SortColumn = { values: readonly unknown[]; sign: number; field: CompiledSort['field']; text: boolean };

/** The columns of `effectiveSort(sort)`'s keys, each with how its values compare. */
export function sortColumns(store: ObjectColumns, sort: readonly CompiledSort[]): SortColumn[] {
  return effectiveSort(sort).map(({ field, direction }) => {
    const values = field.system && field.name === 'uuid' ? store.uuids : store.columns.get(columnKey(field));
    if (!values) throw new Error(`column ${columnKey(field)} is not held`);
    const sign = direction === 'desc' ? -1 : 1;
    const text = !numeric(field.type) && field.type !== 'boolean';
    return { values, sign, field, text };
  });
}

/** Orders two sort values of a key (`sortValueOf`'s): missing values last either way. */
export function compareSortValues(k: SortColumn, x: unknown, y: unknown): number {
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  const c = k.text ? compareText(String(x), String(y)) : Number(x) - Number(y);
  return c === 0 ? 0 : k.sign * c;
}

/** Orders two rows as `compareSortKeys` orders their sort keys (missing values last either way; uuid last). */
export function rowOrder(store: ObjectColumns, sort: readonly CompiledSort[]): (a: number, b: number) => number {
  const keys = sortColumns(store, sort);
  return (a, b) => {
    for (const k of keys) {
      const c = compareSortValues(k, sortValueOf(k.field, k.values[a]), sortValueOf(k.field, k.values[b]));
      if (c !== 0) return c;
    }
    return 0;
  };
}


/** The sorts a store keeps row orders for (least recently used out first). */
const MAX_ORDERS = 8;
/** Fewer matches than this are put in order among themselves; more, and the row order of the sort is walked. */
export const FEW = 1000;

export const sortName = (sort: readonly CompiledSort[]) => JSON.stringify(effectiveSort(sort).map((s) => [s.field.system, s.field.name, s.field.type, s.direction]));

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
export const rowOrderOf = (store: ObjectColumns, sort: readonly CompiledSort[]): RowOrder => finish(rowOrderOfSteps(store, sort));

/** `rowOrderOf` in steps (steps.ts): the sort of every live row is a merge sort that yields. */
export function* rowOrderOfSteps(store: ObjectColumns, sort: readonly CompiledSort[]): Steps<RowOrder> {
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
  kept = placed(sort, yield* sortSteps(Int32Array.from(live), rowOrder(store, sort)), store.uuids.length);
  store.orders.set(name, kept);
  if (store.orders.size > MAX_ORDERS) store.orders.delete(store.orders.keys().next().value!);
  return kept;
}

