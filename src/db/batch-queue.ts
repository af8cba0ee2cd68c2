import { detached } from './query-signal.js';

/**
 * A batching queue (group commit): work items wait while `maxInFlight` flushes are running, and
 * the next flush takes every waiting item (up to `maxBatch`) at once. Items of one key never
 * share a flush (a stream's head moves once per statement); the later ones wait for the next.
 *
 * With few concurrent callers nothing waits and every flush holds one item; under load the
 * flushes grow, so the database commits (and fsyncs) once for many appends, or answers many
 * reads with one statement (one round trip, one backend woken).
 */
export function batchQueue<T>(options: {
  maxInFlight: number;
  maxBatch: number;
  key: (item: T) => string;
  flush: (batch: T[]) => Promise<void>;
}) {
  let queue: T[] = [];
  let inFlight = 0;

  function take(size: number): T[] {
    const keys = new Set<string>();
    const batch: T[] = [];
    const rest: T[] = [];
    for (const item of queue) {
      const key = options.key(item);
      if (batch.length < size && !keys.has(key)) {
        keys.add(key);
        batch.push(item);
      } else {
        rest.push(item);
      }
    }
    queue = rest;
    return batch;
  }

  function pump() {
    while (inFlight < options.maxInFlight && queue.length > 0) {
      // The waiting items spread over the free flushes: every database connection gets work.
      const batch = take(Math.min(options.maxBatch, Math.ceil(queue.length / (options.maxInFlight - inFlight))));
      inFlight++;
      // `flush` settles its items itself; this only keeps the queue moving. It works for every
      // item's caller, so no one request's client leaving may cancel it.
      detached(() => options.flush(batch))
        .catch(() => {})
        .finally(() => {
          inFlight--;
          pump();
        });
    }
  }

  // A submitted item waits for the end of this turn of the event loop: the items submitted in
  // the same turn (requests read together, callers a finished flush let go) share a flush.
  let scheduled = false;
  const pumpSoon = () => {
    scheduled = false;
    pump();
  };

  return {
    submit(item: T) {
      queue.push(item);
      if (!scheduled) {
        scheduled = true;
        setImmediate(pumpSoon);
      }
    },
    get waiting() {
      return queue.length;
    },
  };
}
