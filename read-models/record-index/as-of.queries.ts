import { PROPERTY_STREAM_PREFIX } from '../../aggregates/property/property.events.js';
import { RECORD_STREAM_PREFIX } from '../../aggregates/record/record.events.js';
import type { Sql } from '../../ports/sql.js';
import type { PropertyRow } from '../properties.queries.js';

/** A record event as a list as of a position needs it (ADR 0020). */
export interface LoggedRecordEvent {
  /** `transaction_id` (xid8 as text): with the position, the log's order. */
  tx: string;
  position: number;
  streamId: string;
  type: string;
  data: Record<string, unknown>;
  userUuid: string | null;
  occurredAt: number;
  /** Whether no open transaction can still add an event before it (tx below the snapshot's xmin). */
  safe: boolean;
}

interface EventRow {
  tx: string;
  position: string | number;
  stream_id: string;
  type: string;
  data: Record<string, unknown>;
  user_uuid: string | null;
  occurred_at: string | number;
  safe: boolean;
}

const toEvent = (r: EventRow): LoggedRecordEvent => ({
  tx: r.tx,
  position: Number(r.position),
  streamId: r.stream_id,
  type: r.type,
  data: r.data,
  userUuid: r.user_uuid,
  occurredAt: Number(r.occurred_at),
  safe: r.safe,
});

const eventColumns = `e.transaction_id::text as tx, e.position, e.stream_id, e.type, e.data, e.metadata ->> 'userUuid' as user_uuid, e.occurred_at,
  e.transaction_id < pg_snapshot_xmin(pg_current_snapshot()) as safe`;

/**
 * The log's last position (the highest of the last 1,000 events in the log's order: positions are
 * taken in that order but for transactions still open, so this is the head give or take those),
 * and the position of the company's last event at or before `time` (by time, then position; null:
 * none). Both walk an index from its end: no count or scan of the company's events.
 */
export async function logPositions(sql: Sql, tenant: string, time?: number): Promise<{ head: number | null; atTime: number | null }> {
  const [row] = await sql.query<{ head: string | null; at_time: string | null }>(
    `select (select max(position) from (select position from events order by transaction_id desc, position desc limit 1000) last) as head,
            (select position from events where tenant = $1 and occurred_at <= $2 order by occurred_at desc, position desc limit 1) as at_time`,
    [tenant, time ?? 0],
    'as_of_positions',
  );
  return { head: row?.head == null ? null : Number(row.head), atTime: time === undefined || row?.at_time == null ? null : Number(row.at_time) };
}

/** The last place of the log no open transaction can precede (null: an empty log). */
export async function safeHead(sql: Sql): Promise<{ tx: string; position: number } | null> {
  const [row] = await sql.query<{ tx: string; position: string }>(
    `select transaction_id::text as tx, position from events
      where transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      order by transaction_id desc, position desc limit 1`,
  );
  return row ? { tx: row.tx, position: Number(row.position) } : null;
}

/** A page of the object's record uuids (its rows: primary and extended), in uuid order after `after`. */
export async function objectRecordUuids(sql: Sql, tenant: string, objectUuid: string, after: string, limit: number): Promise<string[]> {
  const rows = await sql.query<{ uuid: string }>(
    'select uuid from records where tenant = $1 and object_uuid = $2 and uuid > $3 order by uuid limit $4',
    [tenant, objectUuid, after, limit],
    'as_of_record_uuids',
  );
  return rows.map((r) => r.uuid);
}

/** The events of these records up to a place of the log, each record's in its order. */
export async function recordsEventsTo(sql: Sql, tenant: string, uuids: readonly string[], to: { tx: string; position: number }): Promise<LoggedRecordEvent[]> {
  const rows = await sql.query<EventRow>(
    `select ${eventColumns} from events e
      where e.tenant = $1 and e.stream_id = any($2::text[]) and (e.transaction_id, e.position) <= ($3::text::xid8, $4::bigint)
      order by e.stream_id, e.revision`,
    [tenant, uuids.map((u) => `${RECORD_STREAM_PREFIX}${u}`), to.tx, to.position],
  );
  return rows.map(toEvent);
}

/**
 * The company's record events after a place of the log, in its order (up to `limit`): those of
 * every record stream, since a new record or an extension can bring a record into the object.
 */
export async function recordEventsAfter(sql: Sql, tenant: string, after: { tx: string; position: number }, limit: number): Promise<LoggedRecordEvent[]> {
  const rows = await sql.query<EventRow>(
    `select ${eventColumns} from events e
      where (e.transaction_id, e.position) > ($2::text::xid8, $3::bigint) and e.tenant = $1 and e.stream_id like $4
      order by e.transaction_id, e.position limit $5`,
    [tenant, after.tx, after.position, `${RECORD_STREAM_PREFIX}%`, limit],
  );
  return rows.map(toEvent);
}

/** One record's events up to a place of the log (a record extended into an object after the object's events were read). */
export async function streamEventsTo(sql: Sql, tenant: string, streamId: string, to: { tx: string; position: number }): Promise<LoggedRecordEvent[]> {
  const rows = await sql.query<EventRow>(
    `select ${eventColumns} from events e
      where e.tenant = $1 and e.stream_id = $2 and (e.transaction_id, e.position) <= ($3::text::xid8, $4::bigint)
      order by e.transaction_id, e.position`,
    [tenant, streamId, to.tx, to.position],
  );
  return rows.map(toEvent);
}

/**
 * The properties of the objects that existed at a position: created at or before it and not
 * deleted then (the last of its created / deleted / restored events up to it). A property's name
 * and type never change (PropertyUpdated is display only), so its row now describes it then.
 */
export async function propertiesAt(sql: Sql, tenant: string, objectUuids: readonly string[], position: number): Promise<PropertyRow[]> {
  if (objectUuids.length === 0) return [];
  return sql.query<PropertyRow>(
    `select p.* from rm_properties p
      where p.tenant = $1 and p.object_uuid = any($2::uuid[])
        and (select e.type from events e
              where e.tenant = p.tenant and e.stream_id = $4 || p.property_uuid::text and e.type <> 'PropertyUpdated' and e.position <= $3
              order by e.revision desc limit 1) in ('PropertyCreated', 'PropertyRestored')
      order by p.object_uuid, p.created_at, p.name`,
    [tenant, objectUuids, position, PROPERTY_STREAM_PREFIX],
  );
}
