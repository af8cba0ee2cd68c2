import type { Projection } from '../../projections/projection.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { applyProjections } from './apply.js';
import { rebuildApplied, rebuildRunning, rebuildTotal } from '../metrics/metrics.js';
import { analyzeTables } from '../db/statistics.js';

const HORIZON_WAIT_MS = 60_000;

export interface RebuildResult {
  events: number;
  ms: number;
}

/**
 * Empties every read model and replays the whole log into it, one transaction per batch. Run it
 * with the API servers stopped: a live append during the replay would be applied out of order.
 */
export async function rebuildReadModels(
  db: Db,
  store: EventStore,
  projections: readonly Projection[],
  batchSize = 2000,
  onProgress?: (p: { applied: number; total: number }) => void,
): Promise<RebuildResult> {
  const started = Date.now();
  rebuildRunning.set(1);
  try {
    return await replay();
  } finally {
    rebuildRunning.set(0);
  }

  async function replay(): Promise<RebuildResult> {
    const tables = [...new Set(projections.flatMap((p) => p.tables))];
    let events = 0;
    // Every event committed before the rebuild must be replayed. The gap-safe reader holds back
    // events behind any open transaction on the server (even in another database), so an empty
    // batch before this count is reached means "wait", not "done".
    const committed = store.name === 'eventstoredb' ? 0 : Number((await db.query<{ n: number }>('select count(*)::int8 as n from events'))[0]!.n);
    rebuildTotal.set(committed);
    rebuildApplied.set(0);
    onProgress?.({ applied: 0, total: committed });
    const deadline = Date.now() + HORIZON_WAIT_MS;
    if (tables.length > 0) await db.query(`truncate ${tables.map((t) => `"${t}"`).join(', ')}`);
    let after: string | undefined;
    for (;;) {
      const batch = await store.readAll({ after, maxCount: batchSize });
      if (batch.length === 0) {
        if (events >= committed) break;
        if (Date.now() > deadline) throw new Error(`rebuild: ${committed - events} committed events stayed unreadable for ${HORIZON_WAIT_MS} ms (a long transaction holds the xmin horizon)`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      await db.transaction((tx) => applyProjections(projections, batch, tx));
      events += batch.length;
      after = batch[batch.length - 1]!.checkpoint;
      rebuildApplied.set(events);
      onProgress?.({ applied: events, total: Math.max(committed, events) });
    }
    // Every row is new: the planner's statistics must describe them before the API plans on them.
    await analyzeTables(db, tables);
    return { events, ms: Date.now() - started };
  }
}
