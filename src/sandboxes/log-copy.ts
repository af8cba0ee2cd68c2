import { setImmediate as yieldTurn } from 'node:timers/promises';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import type { Projection } from '../../projections/projection.js';
import type { Db } from '../db/db.js';
import { storedEvent, type EventRow } from '../event-store/postgres.rows.js';
import { applyProjections } from '../projections/apply.js';

/**
 * Streams a clone never copies: the company itself (its row is keyed by the company's uuid alone:
 * identity stays the company's), the apps it publishes (keyed by app uuid alone) and the company's
 * own sandboxes. Memberships are copied (tenant-keyed), so the sandbox shows who did what as the
 * company does; who may call is still decided in the company.
 */
export const NOT_CLONED = ['company-', 'app-', 'sandbox-'] as const;
const notCloned = NOT_CLONED.map((p) => `${p}%`);

/** Which of the company's events a clone copies: up to a position and a time (both inclusive). */
export interface CopyBound {
  fromTenant: string;
  upToPosition: number;
  asOfTime: number | null;
  /** Only streams of these prefixes (a partner copy); absent: all but `NOT_CLONED`. */
  only?: readonly string[];
}

const sourceWhere = `tenant = $1 and position <= $2 and ($3::int8 is null or occurred_at <= $3) and not (stream_id like any($4::text[])) and ($6::text[] is null or stream_id like any($6::text[]))`;
const patterns = (prefixes: readonly string[] | undefined) => (prefixes ? prefixes.map((p) => `${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : null);

/**
 * The bound of a clone asked now: the last position of the company's log committed when asked,
 * capped by `asOf`; and how many events it holds. Not the readers' xmin rule: on PostgreSQL the
 * xmin is the whole server's, and any long transaction elsewhere would leave the company's last
 * writes out. An append still open when asked that commits before the copy is planned, below the
 * bound, is copied too.
 */
export async function resolveBound(db: Db, fromTenant: string, asOf: { position: number | null; time: number | null }, only?: readonly string[]): Promise<{ upToPosition: number; total: number }> {
  const [row] = await db.query<{ up_to: number | null; total: number }>(
    `select max(position)::int8 as up_to, count(*)::int4 as total from events
      where $5::uuid is null and ${sourceWhere}`,
    [fromTenant, asOf.position ?? Number.MAX_SAFE_INTEGER, asOf.time, notCloned, null, patterns(only)],
  );
  return { upToPosition: row?.up_to ?? 0, total: row?.total ?? 0 };
}

/** Numbers the events to copy in the log's global order (transaction, position). Returns their count. */
export async function planCopy(db: Db, cloneUuid: string, bound: CopyBound): Promise<number> {
  await db.query('delete from sandbox_clone_queue where clone_uuid = $1', [cloneUuid]);
  const [row] = await db.query<{ n: number }>(
    `with q as (insert into sandbox_clone_queue (clone_uuid, seq, transaction_id, position)
       select $5, row_number() over (order by transaction_id, position), transaction_id, position from events where ${sourceWhere}
       returning 1)
     select count(*)::int4 as n from q`,
    [bound.fromTenant, bound.upToPosition, bound.asOfTime, notCloned, cloneUuid, patterns(bound.only)],
  );
  return row?.n ?? 0;
}

export async function dropPlan(db: Db, cloneUuid: string) {
  await db.query('delete from sandbox_clone_queue where clone_uuid = $1', [cloneUuid]);
}

/** The source events of seq (from, to], as they are in the company's log. */
export async function plannedEvents(db: Db, cloneUuid: string, from: number, to: number): Promise<EventRow[]> {
  return db.query<EventRow>(
    `select e.position, e.transaction_id::text as tx_id, e.tenant, e.stream_id, e.revision, e.type, e.version, e.data, e.metadata
       from sandbox_clone_queue q join events e on e.transaction_id = q.transaction_id and e.position = q.position
      where q.clone_uuid = $1 and q.seq > $2 and q.seq <= $3 order by q.seq`,
    [cloneUuid, from, to],
  );
}

/**
 * Appends `events` to `toTenant`'s log as they are (same streams, revisions, types and data; the
 * metadata's tenant becomes the copy's) and projects them, in one transaction: a page of a clone
 * lands whole or not at all. Not a command: these events were decided already, in the company.
 */
export async function appendCopies(db: Db, projections: readonly Projection[], toTenant: string, events: readonly Pick<EventRow, 'stream_id' | 'revision' | 'type' | 'version' | 'data' | 'metadata'>[]): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const payload = JSON.stringify(events.map((e) => ({ s: e.stream_id, r: e.revision, t: e.type, v: e.version, d: e.data, m: { ...e.metadata, tenant: toTenant } })));
  return db.transaction(async (tx) => {
    const rows = await tx.query<EventRow>(
      `with x as (select * from jsonb_array_elements($2::jsonb) with ordinality as x(ev, i)),
       ins as (
         insert into events as e (tenant, stream_id, revision, type, version, data, metadata, occurred_at)
         select $1, x.ev->>'s', (x.ev->>'r')::int8, x.ev->>'t', (x.ev->>'v')::int, x.ev->'d', x.ev->'m', (x.ev->'m'->>'occurredAt')::int8 from x order by x.i
         returning e.position, e.transaction_id::text as tx_id, e.tenant, e.stream_id, e.revision, e.type, e.version, e.data, e.metadata
       ),
       heads as (
         insert into streams as s (tenant, stream_id, revision)
         select $1, x.ev->>'s', max((x.ev->>'r')::int8) from x group by x.ev->>'s'
         on conflict (tenant, stream_id) do update set revision = greatest(s.revision, excluded.revision)
         returning 1
       )
       select ins.*, (select count(*) from heads) as heads from ins order by ins.position`,
      [toTenant, payload],
    );
    const stored = rows.map((r) => storedEvent(r, r));
    await applyProjections(projections, stored, tx);
    return stored;
  });
}

export interface CopyProgress {
  copied: number;
  total: number;
  lastPosition: number;
}

/**
 * Copies the planned events into `toTenant` page by page, from `start` (events already copied),
 * giving the event loop back between pages. `map` may rewrite each page (a partner copy's new
 * uuids); `onPage` hears the progress after each page. Stops early when `stopped()` says so.
 */
export async function copyPlanned(
  db: Db,
  projections: readonly Projection[],
  o: {
    cloneUuid: string;
    toTenant: string;
    total: number;
    start?: number;
    pageSize?: number;
    map?: (page: EventRow[]) => Promise<EventRow[]> | EventRow[];
    onPage?: (p: CopyProgress) => Promise<void>;
    stopped?: () => boolean;
  },
): Promise<CopyProgress> {
  const pageSize = o.pageSize ?? 1000;
  let copied = o.start ?? 0;
  let lastPosition = 0;
  while (copied < o.total && !o.stopped?.()) {
    const source = await plannedEvents(db, o.cloneUuid, copied, copied + pageSize);
    if (source.length === 0) break;
    const page = o.map ? await o.map(source) : source;
    const stored = await appendCopies(db, projections, o.toTenant, page);
    copied += source.length;
    lastPosition = stored.at(-1)?.position ?? lastPosition;
    await o.onPage?.({ copied, total: o.total, lastPosition });
    await yieldTurn();
  }
  return { copied, total: o.total, lastPosition };
}
