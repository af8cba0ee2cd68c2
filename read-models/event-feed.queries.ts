import type { Sql } from '../ports/sql.js';
import { streamCondition, type EventLogRow } from './event-log.queries.js';

/** A place in the global log: `(transaction_id, position)`, the log's order (docs/events.md, "The live feed"). */
export interface LogPlace {
  txId: string;
  position: number;
}

/** What a tenant's feed is narrowed by (all optional; they AND together, values of one OR). */
export interface EventFeedFilter {
  type?: string[];
  /** Exact stream ids, or a prefix ending in `*` (e.g. `record-*`). */
  stream?: string[];
  /** Object names or uuids: events whose data names the object (`objectName` / `objectUuid`). */
  object?: string[];
  requestId?: string[];
}

/** A feed's filter, and what only the server narrows by: events whose data names one user (a member's inbox, src/notifications/). */
export interface FeedNarrowing extends EventFeedFilter {
  dataUserUuid?: string;
}

export interface EventFeedRow extends EventLogRow {
  tx_id: string;
}

export interface EventFeedPage {
  /** The tenant's matching events after `after`, in log order. */
  rows: EventFeedRow[];
  /** The last place read, matching or not (null: nothing new). The next page starts after it. */
  readTo: LogPlace | null;
  /** Events of the log read (all tenants): fewer than asked means the page reached the safe end. */
  scanned: number;
}

const columns = 'position, transaction_id, tenant, stream_id, revision, type, version, data, metadata, occurred_at';

/**
 * One page of a tenant's feed: up to `scan` events of the global log after `after` that no
 * transaction still open can precede (below the snapshot's xmin, as `readAll` reads), then those
 * of the tenant that match. Reading the log by its key and filtering afterwards bounds the work of
 * a page however sparse the tenant is; `readTo` moves past what did not match.
 */
export async function eventFeedPage(sql: Sql, tenant: string, after: LogPlace, filter: FeedNarrowing, scan: number, committedAfter?: string): Promise<EventFeedPage> {
  const params: unknown[] = [after.txId, after.position, scan, tenant];
  const arg = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = ['tenant = $4'];
  if (committedAfter) where.push(`not pg_visible_in_snapshot(transaction_id, ${arg(committedAfter)}::text::pg_snapshot)`);
  const anyOf = (expr: string, values?: string[]) => {
    if (values?.length) where.push(`${expr} = any(${arg(values)}::text[])`);
  };
  anyOf('type', filter.type);
  anyOf(`metadata ->> 'requestId'`, filter.requestId);
  if (filter.dataUserUuid) where.push(`data ->> 'userUuid' = ${arg(filter.dataUserUuid)}`);
  if (filter.object?.length) {
    const objects = arg(filter.object);
    where.push(`(data ->> 'objectName' = any(${objects}::text[]) or data ->> 'objectUuid' = any(${objects}::text[]))`);
  }
  if (filter.stream?.length) where.push(streamCondition(filter.stream, arg));
  const rows = await sql.query<EventFeedRow & { read_tx: string; read_position: number; scanned: number }>(
    `with scanned as (
       select ${columns} from events
        where (transaction_id, position) > ($1::text::xid8, $2::bigint)
          and transaction_id < (select pg_snapshot_xmin(pg_current_snapshot()))
        order by transaction_id, position limit $3
     ), read_to as (
       select transaction_id::text as read_tx, position as read_position, (select count(*) from scanned) as scanned
         from scanned order by transaction_id desc, position desc limit 1
     ), matched as (
       select * from scanned where ${where.join(' and ')}
     )
     select m.position, m.transaction_id::text as tx_id, m.tenant, m.stream_id, m.revision, m.type, m.version, m.data, m.metadata,
            m.occurred_at, r.read_tx, r.read_position, r.scanned
       from read_to r left join matched m on true
      order by m.transaction_id, m.position`,
    params,
  );
  const last = rows[0];
  if (!last) return { rows: [], readTo: null, scanned: 0 };
  return {
    rows: rows.filter((r) => r.tx_id !== null),
    readTo: { txId: last.read_tx, position: Number(last.read_position) },
    scanned: Number(last.scanned),
  };
}

/**
 * Where a feed of what is committed from now on starts: the last place no open transaction can
 * precede, and the snapshot of now. Events past that place that the snapshot already sees were
 * committed before now: `eventFeedPage(..., committedAfter: snapshot)` leaves them out.
 */
export async function eventFeedHead(sql: Sql): Promise<{ after: LogPlace; snapshot: string }> {
  const [row] = await sql.query<{ tx_id: string | null; position: number | null; snapshot: string }>(
    `select pg_current_snapshot()::text as snapshot, head.tx_id, head.position
       from (select 1) one left join (
         select transaction_id::text as tx_id, position from events
          where transaction_id < (select pg_snapshot_xmin(pg_current_snapshot()))
          order by transaction_id desc, position desc limit 1
       ) head on true`,
  );
  return { after: row?.tx_id ? { txId: row.tx_id, position: Number(row.position) } : { txId: '0', position: 0 }, snapshot: row!.snapshot };
}
