import type { Projection } from '../../projections/projection.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { applyProjections } from './apply.js';

export interface RebuildResult {
  events: number;
  ms: number;
}

/**
 * Empties every read model and replays the whole log into it, one transaction per batch. Run it
 * with the API servers stopped: a live append during the replay would be applied out of order.
 */
export async function rebuildReadModels(db: Db, store: EventStore, projections: readonly Projection[], batchSize = 2000): Promise<RebuildResult> {
  const started = Date.now();
  const tables = [...new Set(projections.flatMap((p) => p.tables))];
  let events = 0;
  if (tables.length > 0) await db.query(`truncate ${tables.map((t) => `"${t}"`).join(', ')}`);
  let after: string | undefined;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: batchSize });
    if (batch.length === 0) break;
    await db.transaction((tx) => applyProjections(projections, batch, tx));
    events += batch.length;
    after = batch[batch.length - 1]!.checkpoint;
  }
  return { events, ms: Date.now() - started };
}
