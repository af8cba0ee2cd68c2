import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { FEW, rowOrderOfSteps, sortName } from './row-orders.js';
import { valueSetCondition } from './bits-scan.js';
import {
  columnKey, foldedColumnSteps, gramPostingsHeld, gramPostingsOfSteps, rowBitsOfSteps, textPostingsHeld, textPostingsOfSteps, valueBitsOfSteps, valueBitsTried,
  type ObjectColumns,
} from './object-columns.js';
import { foldsText, postingCondition } from './row-tests.js';
import type { Steps } from './steps.js';

/**
 * A request's scan prepared ahead (ADR 0019): the object store builds what a scan reads in the
 * background, in slices, and answers a request from its columns only once nothing is left to
 * make; the scan itself (column-scan.ts) then only scans.
 */

/**
 * What a scan of the request reads that the store does not hold (or holds stale), each as steps
 * that make it: the row bitsets, a condition's value sets, folded text or gram postings, the text
 * postings, the sort's row order (an object of more than FEW rows). After them, `scanColumns` of
 * the request only scans, and brings what it reads up to date with the rows changed since.
 */
function scanNeeds(store: ObjectColumns, request: Pick<CompiledIndexRequest, 'filter' | 'sort'> & { text?: readonly string[] }): (() => Steps<unknown>)[] {
  const needs: (() => Steps<unknown>)[] = [];
  if (!store.bits) needs.push(() => rowBitsOfSteps(store));
  const textTests = [...request.filter.anyOf.flat()];
  for (const c of request.filter.all) {
    const key = columnKey(c.field);
    if (valueSetCondition(c)) {
      if (!valueBitsTried(store, key)) needs.push(() => valueBitsOfSteps(store, key));
    } else if (postingCondition(c)) {
      if (!gramPostingsHeld(store, key)) needs.push(() => gramPostingsOfSteps(store, key));
    } else textTests.push(c);
  }
  for (const c of textTests) {
    const key = columnKey(c.field);
    if (foldsText(c) && !store.folded.has(key)) needs.push(() => foldedColumnSteps(store, key));
  }
  if (request.text && !textPostingsHeld(store)) needs.push(() => textPostingsOfSteps(store));
  if ((!request.text || request.sort.length > 0) && store.uuids.length > FEW && !store.orders.has(sortName(request.sort))) {
    needs.push(() => rowOrderOfSteps(store, request.sort));
  }
  return needs;
}

/** Makes, in steps, what a scan of the request would make at its first use (`scanNeeds`). */
export function* prepareScanSteps(store: ObjectColumns, request: Pick<CompiledIndexRequest, 'filter' | 'sort'> & { text?: readonly string[] }): Steps<void> {
  for (const need of scanNeeds(store, request)) yield* need();
}

/** Whether a scan of the request finds everything it reads made (nothing left for `prepareScanSteps`). */
export const scanPrepared = (store: ObjectColumns, request: Pick<CompiledIndexRequest, 'filter' | 'sort'> & { text?: readonly string[] }) =>
  scanNeeds(store, request).length === 0;

