import type { StoredEvent } from '../aggregates/kernel/events.js';
import type { Sql } from '../ports/sql.js';

/**
 * `update <table> set <changes>, updated_at, revision where <key> and revision < <this revision>`:
 * applies a change once, however often the event is delivered. `changes` maps columns to values
 * (`undefined` leaves a column alone; `json` columns take their value as JSON text). Returns
 * whether the row changed.
 */
export async function advance(
  tx: Sql,
  stored: StoredEvent,
  table: string,
  key: Record<string, string>,
  changes: Record<string, unknown> = {},
  json: readonly string[] = [],
): Promise<boolean> {
  const params: unknown[] = [stored.revision, stored.metadata.occurredAt];
  const sets = ['updated_at = $2', 'revision = $1'];
  for (const [column, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    params.push(json.includes(column) ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}${json.includes(column) ? '::jsonb' : ''}`);
  }
  const where = Object.entries(key).map(([column, value]) => {
    params.push(value);
    return `${column} = $${params.length}`;
  });
  const rows = await tx.query(`update ${table} set ${sets.join(', ')} where ${where.join(' and ')} and revision < $1 returning revision`, params);
  return rows.length > 0;
}
