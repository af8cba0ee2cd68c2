import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { sandboxesAmong } from '../../read-models/sandboxes.queries.js';
import type { Sql } from '../db/db.js';

const NOT_SANDBOXES_KEPT = 10_000;

/**
 * Which events reactors (webhooks, syncs) may act on: a company's always; a sandbox's only when its
 * owner turned its reactors on, and then only what happened in it after its clone (never the
 * copied history), and never once it is deleted. Tenants found not to be sandboxes are remembered
 * (a company never becomes one).
 */
export function sandboxReactorGate(sql: Sql) {
  const notSandboxes = new Set<string>();
  return async (events: StoredEvent[]): Promise<StoredEvent[]> => {
    const unknown = [...new Set(events.map((e) => e.tenant))].filter((t) => !notSandboxes.has(t));
    if (unknown.length === 0) return events;
    const found = new Map((await sandboxesAmong(sql, unknown)).map((s) => [s.sandbox_uuid, s]));
    if (notSandboxes.size > NOT_SANDBOXES_KEPT) notSandboxes.clear();
    for (const t of unknown) if (!found.has(t)) notSandboxes.add(t);
    if (found.size === 0) return events;
    return events.filter((e) => {
      const s = found.get(e.tenant);
      return !s || (s.reactors_enabled && !s.deleted && s.last_position !== null && e.position > s.last_position);
    });
  };
}
