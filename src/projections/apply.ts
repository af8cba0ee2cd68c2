import type { StoredEvent } from '../../aggregates/kernel/events.js';
import type { Projection, Sql } from '../../projections/projection.js';

/** Applies each event to every projection that handles its type, in order. */
export async function applyProjections(projections: readonly Projection[], events: readonly StoredEvent[], tx: Sql) {
  for (const event of events) {
    for (const projection of projections) {
      if (projection.handles.includes(event.type)) await projection.apply(event, tx);
    }
  }
}
