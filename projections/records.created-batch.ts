import type { StoredEvent } from '../aggregates/kernel/events.js';
import { indexDoc } from '../aggregates/record/record.index-doc.js';
import { RECORD_STREAM_PREFIX, type RecordEvent, recordUuidOfStream } from '../aggregates/record/record.events.js';
import type { FusedWrite, PendingEvent } from './projection.js';
import type { Sql } from '../ports/sql.js';
import { pivotRowsCtes } from './records.pivot-sql.js';

/** A record row to insert: one per object context of a record. */
export interface NewRecordRow {
  tenant: string;
  revision: number;
  objectUuid: string;
  uuid: string;
  primary: boolean;
  primaryObjectUuid: string;
  objectName: string;
  extends: readonly string[];
  vals: Record<string, unknown>;
  createdAt: number;
  createdBy: string | null;
}

/** The rows a `RecordCreated` makes: one per object context, the primary first. */
export function createdRows(stored: PendingEvent): NewRecordRow[] {
  const d = (stored as StoredEvent<RecordEvent> & Extract<RecordEvent, { type: 'RecordCreated' }>).data;
  const ext = d.extends ?? [];
  return [d.objectUuid, ...ext].map((objectUuid) => ({
    tenant: stored.tenant,
    revision: stored.revision,
    objectUuid,
    uuid: recordUuidOfStream(stored.streamId),
    primary: objectUuid === d.objectUuid,
    primaryObjectUuid: d.objectUuid,
    objectName: d.objectName,
    extends: ext,
    vals: d.properties,
    createdAt: stored.metadata.occurredAt,
    createdBy: stored.metadata.userUuid,
  }));
}

/** The columns of the rows to insert, as `jsonb_to_recordset` reads them (`NewRecordRow`s by `inputOf`). */
const inputColumns = `i int, tenant text, object_uuid uuid, uuid uuid, is_primary boolean,
    primary_object_uuid uuid, object_name text, extends uuid[], vals jsonb, doc text, at bigint, by uuid, revision bigint,
    pivot jsonb, uniq jsonb`;

/**
 * The CTEs that insert the rows of `input`: the rows, their pivot rows (pivot keys created on
 * first use), their unique reservations and the live counts. A row already there (a replay) is
 * skipped with its pivot. `rx` holds the inserted rows, `s` their pivot rows.
 */
const rowsCtes = `
r as (
  insert into records (tenant, object_uuid, uuid, is_primary, primary_object_uuid, object_name, extends, vals, search,
                       created_at, updated_at, created_by, updated_by, revision)
  select tenant, object_uuid, uuid, is_primary, primary_object_uuid, object_name, extends, vals, scoped_tsvector(object_uuid, to_tsvector('simple', doc)),
         at, at, by, by, revision
    from input order by i
  on conflict do nothing returning tenant, object_uuid, uuid, rid
),
rx as (select r.rid, x.* from r join input x on x.tenant = r.tenant and x.object_uuid = r.object_uuid and x.uuid = r.uuid),
want as (
  select rx.rid, rx.tenant, rx.object_uuid, p.name, p.t, p.tf, p.n
    from rx, jsonb_to_recordset(rx.pivot) as p(name text, t text, tf text, n float8)
),
${pivotRowsCtes},
u as (
  insert into record_unique (tenant, object_uuid, name, value, record_uuid)
  select rx.tenant, p.object_uuid, p.name, case when p.format = 'email' then lower(v.value) else v.value end, rx.uuid
    from rx cross join lateral jsonb_to_recordset(rx.uniq) as v(name text, value text)
    join rm_properties p on p.tenant = rx.tenant and p.object_uuid = rx.object_uuid and p.name = v.name and p.is_unique and p.deleted_at is null
  returning 1
),
c as (
  insert into record_counts as c (tenant, object_uuid, shard, live, archived, changes)
  select tenant, object_uuid, pg_backend_pid() % 16, count(*), 0, count(*) from r group by tenant, object_uuid
  on conflict (tenant, object_uuid, shard) do update set live = c.live + excluded.live, changes = c.changes + excluded.changes
  returning 1
)`;

/**
 * New record rows (of any tenants and objects) in one statement, one row or many. Returns, per
 * inserted row, whether a pivot key hidden by a concurrent transaction left pivot rows out (the
 * caller writes them again).
 */
const insertRows = `
with input as (select * from jsonb_to_recordset($1::jsonb) as x(${inputColumns})),
${rowsCtes}
select rx.i, rx.rid, jsonb_array_length(rx.pivot) - coalesce(w.n, 0)::int as missing,
       (select count(*) from u)::int + (select count(*) from c)::int as other
  from rx left join (select rid, count(*) as n from s group by rid) w on w.rid = rx.rid`;

/** Scalar values (of the `only` properties) as reservation keys: a string as is, anything else as its JSON. */
export function uniqueEntries(values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  return Object.entries(values)
    .filter(([name, v]) => (!only || only.has(name)) && v !== null && typeof v !== 'object')
    .map(([name, v]) => ({ name, value: typeof v === 'string' ? v : JSON.stringify(v) }));
}

/** The rows as the statements' input (JSON of `inputColumns`). */
function inputOf(rows: readonly NewRecordRow[]): string {
  return JSON.stringify(
    rows.map((row, i) => {
      const doc = indexDoc(row.vals);
      return {
        i, tenant: row.tenant, object_uuid: row.objectUuid, uuid: row.uuid, is_primary: row.primary, primary_object_uuid: row.primaryObjectUuid,
        object_name: row.objectName, extends: row.extends, vals: row.vals, doc: doc.text, at: row.createdAt, by: row.createdBy,
        revision: row.revision, pivot: doc.entries.map((e) => ({ name: e.name, t: e.t, tf: e.tf, n: e.n })), uniq: uniqueEntries(row.vals),
      };
    }),
  );
}

/** Inserts the rows in one statement; `repair` rewrites the pivot of a row that missed pivot rows. */
export async function insertRecordRows(tx: Sql, rows: readonly NewRecordRow[], repair: (row: NewRecordRow, rid: number) => Promise<void>) {
  const done = await tx.query<{ i: number; rid: number; missing: number }>(insertRows, [inputOf(rows)], 'records_insert_many');
  for (const d of done) if (d.missing !== 0) await repair(rows[d.i]!, d.rid);
}

/**
 * The rows of created records as CTEs of the append statement itself (`Projection.withAppend`):
 * only the rows of streams the append made (`heads`). A row that a hidden pivot key cut short
 * cannot be written again after the statement commits, so `check` fails the statement instead
 * (a uuid read as an integer: 22P02), and the store appends the usual way.
 */
function createdRowsWithAppend(param: string) {
  const ctes = `input as (
  select x.* from jsonb_to_recordset(${param}::jsonb) as x(${inputColumns})
   where exists (select 1 from heads h where h.tenant = x.tenant and h.stream_id = '${RECORD_STREAM_PREFIX}' || x.uuid::text)
),
${rowsCtes}`;
  const check = `(select count(*) from rx left join (select rid, count(*) as n from s group by rid) w on w.rid = rx.rid
     where (case when jsonb_array_length(rx.pivot) <> coalesce(w.n, 0) then rx.uuid::text end)::int is not null)
   + (select count(*) from u) + (select count(*) from c)`;
  return { ctes, check };
}

/** Creates (a new stream's first event): written with their append. */
export const createdWithAppend: FusedWrite = {
  name: 'append_with_record_creates',
  accepts: (e) => e.type === 'RecordCreated' && e.revision === 0,
  sql: createdRowsWithAppend,
  input: (events) => inputOf(events.flatMap(createdRows)),
};
