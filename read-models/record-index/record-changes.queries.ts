import type { RankedRecord } from './match-set.js';
import { RECORD_STREAM_PREFIX } from '../../aggregates/record/record.events.js';
import type { Sql } from '../../ports/sql.js';
import { objectChangesSql } from '../records.queries.js';
import { textQuery } from './record-index.sql.js';

/**
 * A refresh reads at most this many events (of every tenant: 5-10 ms) and this many changed
 * records of its tenant; past either, the caller reads its matches again (200 ms to a second for
 * a large object), which is then the cheaper read.
 */
export const MATCH_SET_MAX_EVENTS = 10_000;
export const MATCH_SET_MAX_CHANGED = 2_000;

/**
 * What changed in an object's records since a snapshot, read from the event log (PostgreSQL event
 * store only: there the records projection writes in the append's transaction, so the events a
 * snapshot does not see are exactly the record-row changes it does not see).
 *
 * A snapshot (`pg_current_snapshot()`) sees every transaction below its xmin and none from its
 * xmax on; of those between, all but its in-progress list (xip). So the transactions a later
 * statement sees and the snapshot did not are among `transaction_id >= xmax` and `xip`: ranges
 * of the events' key, whatever long transaction holds xmin back. Each is written as an ordered,
 * limited walk of that key, so that no estimate of the planner's turns it into a scan of the log.
 */
export interface RecordChanges {
  /** Too many events or changed records since: nothing else is read, the caller reads its matches again. */
  overflow: boolean;
  /** The statement's own snapshot: what the changes bring a result up to, and the object's change count then. */
  snapshot: string;
  version: string;
  /** The tenant's records with an event the old snapshot did not see. */
  changed: string[];
  /**
   * Their rows in the object now (a record no longer in it, or never in it, has none); with free
   * text, whether it is found and its rank; with `search`, its search vector's text form.
   */
  rows: (RankedRecord & { search?: string })[];
}

/**
 * The changes as one JSON value (a scalar subquery): `tenant`, `object`, `snapshot` are parameter
 * references; `limit` is written into the text, so that a prepared statement's generic plan knows
 * it (with a parameter there, the planner guesses a tenth of the log and keeps planning anew).
 */
const recordChangesSql = (tenant: string, object: string, snapshot: string, limit: number, query?: string, maxChanged = MATCH_SET_MAX_CHANGED, search = false) => `(
  with recent as (
    (select e.tenant, e.stream_id from events e
      where e.transaction_id >= pg_snapshot_xmax(${snapshot}::text::pg_snapshot)
      order by e.transaction_id, e.position limit ${Math.trunc(limit)})
    union all
    (select e.tenant, e.stream_id from pg_snapshot_xip(${snapshot}::text::pg_snapshot) x(id)
      cross join lateral (select tenant, stream_id from events e where e.transaction_id = x.id order by e.transaction_id, e.position limit ${Math.trunc(limit)}) e)
  ),
  changed as (
    select distinct substr(stream_id, ${RECORD_STREAM_PREFIX.length + 1})::uuid as uuid from recent
     where tenant = ${tenant} and stream_id like '${RECORD_STREAM_PREFIX}%'
  ),
  overflow as (
    select (select count(*) from recent) >= ${Math.trunc(limit)} or (select count(*) from changed) > ${Math.trunc(maxChanged)} as o
  )
  select json_build_object(
    'overflow', (select o from overflow),
    'snapshot', pg_current_snapshot()::text,
    'version', ${objectChangesSql(tenant, `${object}::uuid`)},
    'changed', (select coalesce(json_agg(uuid), '[]') from changed where not (select o from overflow)),
    'rows', (select coalesce(json_agg(json_build_object('uuid', c.uuid, 'createdAt', c.created_at, 'updatedAt', c.updated_at,
               'createdBy', c.created_by, 'updatedBy', c.updated_by, 'deletedAt', c.deleted_at, 'properties', c.vals${query ? `,
               'hit', c.search @@ ${textQuery(object, query)}, 'rank', ts_rank(c.search, ${textQuery(object, query)})` : ''}${search ? `, 'search', c.search::text` : ''})), '[]')
               from records c where not (select o from overflow) and c.tenant = ${tenant} and c.object_uuid = ${object}::uuid and c.uuid in (select uuid from changed))
  ))`;

/**
 * The object's record changes since `snapshot` (with `query`, each row's hit and rank; with
 * `search`, each row's search vector), within the limits (MATCH_SET_MAX_EVENTS,
 * MATCH_SET_MAX_CHANGED unless given: tests give small ones).
 */
export async function recordChangesSince(
  sql: Sql, tenant: string, objectUuid: string, snapshot: string, query?: string, limits = { events: MATCH_SET_MAX_EVENTS, changed: MATCH_SET_MAX_CHANGED }, search = false,
): Promise<RecordChanges> {
  const text = `select ${recordChangesSql('$1', '$2', '$3', limits.events, query ? '$4' : undefined, limits.changed, search)} as changes`;
  const name = `records_changes_since${query ? '_text' : ''}${search ? '_search' : ''}_${Math.trunc(limits.events)}_${Math.trunc(limits.changed)}`;
  const [row] = await sql.query<{ changes: RecordChanges }>(text, [tenant, objectUuid, snapshot, ...(query ? [query] : [])], name);
  return row!.changes;
}
