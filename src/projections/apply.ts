import type { StoredEvent } from '../../aggregates/kernel/events.js';
import type { Projection } from '../../projections/projection.js';
import type { Sql } from '../../ports/sql.js';

/**
 * Applies each event to every projection that handles its type, in order. A run of consecutive
 * events that one projection alone handles goes to its `applyBatch` when it has one.
 */
export async function applyProjections(projections: readonly Projection[], events: readonly StoredEvent[], tx: Sql) {
  const handlers = new Map<string, readonly Projection[]>();
  const of = (type: string) => {
    let found = handlers.get(type);
    if (!found) handlers.set(type, (found = projections.filter((p) => p.handles.includes(type))));
    return found;
  };
  for (let i = 0; i < events.length; ) {
    const these = of(events[i]!.type);
    const only = these.length === 1 ? these[0]! : undefined;
    if (only?.applyBatch) {
      let end = i + 1;
      while (end < events.length && sole(of(events[end]!.type), only)) end++;
      if (end - i > 1) {
        await only.applyBatch(events.slice(i, end), tx);
        i = end;
        continue;
      }
    }
    for (const projection of these) await projection.apply(events[i]!, tx);
    i++;
  }
}

const sole = (these: readonly Projection[], projection: Projection) => these.length === 1 && these[0] === projection;
