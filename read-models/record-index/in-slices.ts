import { setImmediate as turn } from 'node:timers/promises';
import type { Steps } from './steps.js';

/** How long one slice of a background build holds the event loop. */
const SLICE_MS = 8;

/**
 * Runs steps (steps.ts) a slice of about SLICE_MS at a time, giving the event loop back between
 * slices (`setImmediate`: pending I/O and timers go first), so a build of seconds delays no request
 * by more than a slice (ADR 0019). Its timers are the one node: module read-models/ imports
 * (docs/architecture.md, the layout table; checked by test/architecture.test.ts).
 */
export async function inSlices<T>(steps: Steps<T>): Promise<T> {
  let until = performance.now() + SLICE_MS;
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() >= until) {
      await turn();
      until = performance.now() + SLICE_MS;
    }
  }
}
