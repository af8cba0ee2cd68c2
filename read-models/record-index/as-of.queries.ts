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

/** The company's last position, and the last one at or before `time` (null: none). */
export async function logPositions(sql: Sql, tenant: string, time?: number): Promise<{ head: number | null; atTime: number | null }> {
  const [row] = await sql.query<{ head: string | null; at_time: string | null }>(
    `select (select max(position) from events where tenant = $1) as head,
            (select max(position) from events where tenant = $1 and occurred_at <= $2) as at_time`,
    [tenant, time ?? 0],
  );
  return { head: row?.head == null ? null : Number(row.head), atTime: time === undefined || row?.at_time == null ? null : Number(row.at_time) };
}

/**
 * The events of the records of an object (by their rows: the primary object's and the extended
 * ones), in the log's order, up to the last place no open transaction can precede; and that
 * place. One statement, so the rows and the events are of one snapshot.
 */
export async function objectRecordEvents(sql: Sql, tenant: string, objectUuid: string): Promise<{ events: LoggedRecordEvent[]; place: { tx: string; position: number } | null }> {
  const rows = await sql.query<EventRow & { head_tx: string | null; head_position: string | null }>(
    `with head as (
       select transaction_id, position from events
        where transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        order by transaction_id desc, position desc limit 1
     ), streams as (
       select $3 || r.uuid::text as stream_id from records r where r.tenant = $1 and r.object_uuid = $2
     )
     select h.transaction_id::text as head_tx, h.position as head_position, x.*
       from (select 1) one left join head h on true
       left join lateral (
         select ${eventColumns} from events e
          where e.tenant = $1 and e.stream_id in (select stream_id from streams)
            and (e.transaction_id, e.position) <= (h.transaction_id, h.position)
          order by e.transaction_id, e.position
       ) x on true`,
    [tenant, objectUuid, RECORD_STREAM_PREFIX],
  );
  const first = rows[0];
  const place = first?.head_tx ? { tx: first.head_tx, position: Number(first.head_position) } : null;
  return { events: rows.filter((r) => r.tx !== null).map(toEvent), place };
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
