import { batchQueue } from '../db/batch-queue.js';
import type { Db } from '../db/db.js';
import { insertTrackedEvents, type TrackedEventRow } from '../../read-models/tracking.queries.js';

interface Item {
  batchId: string;
  rows: TrackedEventRow[];
  done: (err?: unknown) => void;
}

/**
 * The ingest's group commit, bounded: at most `maxPending` batches are held (waiting or being
 * written); the caller that finds it full answers 429. A batch is acknowledged only once the
 * statement that wrote it has committed, so a restart loses nothing acknowledged: what was not
 * acknowledged the sender sends again, and its event ids make it count once.
 */
export function makeIngestQueue(deps: { db: Db; maxPending: number; flushes: number; flushEvents: number; maxEventsPerBatch: number }) {
  let pending = 0;
  const queue = batchQueue<Item>({
    maxInFlight: deps.flushes,
    maxBatch: Math.max(1, Math.floor(deps.flushEvents / deps.maxEventsPerBatch)),
    key: (item) => item.batchId,
    async flush(items) {
      try {
        await insertTrackedEvents(deps.db, items.flatMap((i) => i.rows));
        for (const i of items) i.done();
      } catch (err) {
        for (const i of items) i.done(err);
      }
    },
  });

  return {
    /** Takes a place for one batch, or false when full (answer 429). Every place taken is given back with `release`. */
    admit(): boolean {
      if (pending >= deps.maxPending) return false;
      pending++;
      return true;
    },
    release() {
      pending = Math.max(0, pending - 1);
    },
    get pending() {
      return pending;
    },
    /** Resolves once the rows are committed. */
    write(batchId: string, rows: TrackedEventRow[]): Promise<void> {
      if (rows.length === 0) return Promise.resolve();
      return new Promise((resolve, reject) => queue.submit({ batchId, rows, done: (err) => (err ? reject(err) : resolve()) }));
    },
  };
}
export type IngestQueue = ReturnType<typeof makeIngestQueue>;
