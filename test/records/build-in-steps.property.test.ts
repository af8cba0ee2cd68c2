import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateIndex } from '../../aggregates/record-filter/filter.evaluate.js';
import { prepareScanSteps, scanColumns, scanPrepared, sortSteps, type Steps } from '../../read-models/record-index/index.js';
import { datasetArb, loadedStore, recordArb, requestArb } from './filter-arbitraries.js';

/**
 * The laws of the index built in steps (ADR 0019): a builder run in slices makes what it makes at
 * once, and a scan of a store prepared in steps needs nothing more (`scanPrepared`) and answers
 * what the plain in-memory evaluator answers.
 */

/** Runs steps one at a time, counting the yields (a builder that yields is one the shell can slice). */
function stepped<T>(steps: Steps<T>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

describe('building the in-process index in steps', () => {
  it('sorts as Array.prototype.sort does, for any rows and a total order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 6000 }), fc.boolean(), (keys, desc) => {
        // A total order on row numbers: by key, then by row (as the record sorts end with the uuid).
        const order = (a: number, b: number) => (keys[a]! - keys[b]!) * (desc ? -1 : 1) || a - b;
        const rows = Int32Array.from(keys.keys());
        const expected = Array.from(rows).sort(order);
        const { value, yields } = stepped(sortSteps(rows, order));
        expect(Array.from(value)).toEqual(expected);
        if (keys.length > 5000) expect(yields).toBeGreaterThan(1);
      }),
      { numRuns: 60, seed: 19 },
    );
  });

  it('prepares every request so that its scan needs nothing more and equals the evaluation', () => {
    let nonEmpty = 0;
    let runs = 0;
    let ordered = 0;
    fc.assert(
      fc.property(datasetArb, requestArb, fc.integer({ min: 0, max: 2500 }), (dataset, body, extra) => {
        // Past FEW (1,000) rows a sorted request needs its row order made too.
        const more = fc.sample(fc.tuple(...Array.from({ length: Math.min(extra, 40) }, (_, i) => recordArb(1000 + i))), { numRuns: 1, seed: extra })[0] ?? [];
        const padded = [...dataset.records, ...more, ...Array.from({ length: extra > 40 ? extra : 0 }, (_, i) => ({ ...dataset.records[0] ?? more[0]!, uuid: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}` }))];
        const { request, store, live } = loadedStore(body, padded.filter((r) => r !== undefined));
        stepped(prepareScanSteps(store, request));
        expect(scanPrepared(store, request)).toBe(true);
        const ordersBefore = store.orders.size;
        const foldedBefore = store.folded.size;
        const expected = evaluateIndex(request, [...live.values()]);
        expect(scanColumns(store, request)).toEqual({ total: expected.total, uuids: expected.rows.map((r) => r.uuid) });
        // The scan made nothing of its own: everything it read was prepared.
        expect(store.orders.size).toBe(ordersBefore);
        expect(store.folded.size).toBe(foldedBefore);
        runs++;
        if (expected.total > 0) nonEmpty++;
        if (ordersBefore > 0) ordered++;
      }),
      { numRuns: 300, seed: 19 },
    );
    expect(nonEmpty / runs).toBeGreaterThan(0.3);
    // Vacuous for row orders if no store passed FEW rows.
    expect(ordered).toBeGreaterThan(20);
  });
});
