import type { StoredEvent } from '../aggregates/kernel/events.js';
import { indexDoc, touchesText } from '../aggregates/record/record.index-doc.js';
import { type RecordEvent, recordUuidOfStream } from '../aggregates/record/record.events.js';
import { uniqueEntries } from './records.created-batch.js';
import type { Sql } from '../ports/sql.js';
import { changeCountCte, pivotDeleteCtes, pivotRowsCtes, uniqueMoveCtes } from './records.pivot-sql.js';

/** A record row as an update finds it (locked, its values before). */
export interface LockedRow {
  rid: number;
  object_uuid: string;
  is_primary: boolean;
  vals: Record<string, unknown>;
  revision: number;
}

/** What an update writes on one record row. */
export interface RowChange {
  tenant: string;
  objectUuid: string;
  rid: number;
  uuid: string;
  /** The first row of its record: it writes the values, text and revision on all the record's rows. */
  first: boolean;
  after: Record<string, unknown>;
  changed: ReadonlySet<string>;
  before: Record<string, unknown>;
  at: number;
  by: string | null;
  revision: number;
}

/** The changes a `RecordUpdated` makes on the record's rows (the primary first). */
export function updatedRows(stored: StoredEvent, rows: readonly LockedRow[]): RowChange[] {
  const d = (stored as StoredEvent<RecordEvent> & Extract<RecordEvent, { type: 'RecordUpdated' }>).data;
  const before = rows[0]!.vals;
  const after: Record<string, unknown> = { ...before };
  for (const [name, change] of Object.entries(d.changes)) {
    if (change.after === null || change.after === undefined) delete after[name];
    else after[name] = change.after;
  }
  const changed = new Set(Object.keys(d.changes));
  return rows.map((row, i) => ({
    tenant: stored.tenant, objectUuid: row.object_uuid, rid: row.rid, uuid: recordUuidOfStream(stored.streamId), first: i === 0,
    after, changed, before, at: stored.metadata.occurredAt, by: stored.metadata.userUuid, revision: stored.revision,
  }));
}

/**
 * Updated record rows (of any tenants, objects and records, each row once) in one statement: the
 * values, text and revision (on every row of a record, from its first), the pivot rows and unique
 * reservations of the changed properties, and the object's change count. A reservation the record
 * already holds is kept (an e-mail changing case keeps its key); any other taken value violates
 * the key. Returns, per row, how many of its pivot rows a pivot key hidden by a concurrent
 * transaction left out (the caller writes them again).
 */
const changeRowsSql = `
with input as (
  select * from jsonb_to_recordset($1::jsonb) as x(i int, tenant text, object_uuid uuid, rid bigint, uuid uuid, first boolean,
    vals jsonb, doc text, at bigint, by uuid, revision bigint, pivot jsonb, old jsonb, changed text[], uniq jsonb)
),
u as (
  update records r set vals = x.vals, search = case when x.doc is null then r.search else scoped_tsvector(r.object_uuid, to_tsvector('simple', x.doc)) end, updated_at = x.at, updated_by = x.by, revision = x.revision
    from input x where x.first and r.tenant = x.tenant and r.uuid = x.uuid
  returning 1
),
old as (
  select x.tenant, x.object_uuid, x.rid, o.name, o.t, o.n
    from input x, jsonb_to_recordset(x.old) as o(name text, t text, n float8)
),
${pivotDeleteCtes('old')},
want as (
  select x.tenant, x.object_uuid, x.rid, p.name, p.t, p.tf, p.n
    from input x, jsonb_to_recordset(x.pivot) as p(name text, t text, tf text, n float8)
),
${pivotRowsCtes},
${uniqueMoveCtes('input')},
${changeCountCte('cnt', 'input')}
select x.i, jsonb_array_length(x.pivot) - coalesce(w.n, 0)::int as missing,
       (select count(*) from u)::int + (select count(*) from udt)::int + (select count(*) from udn)::int
       + (select count(*) from urel)::int + (select count(*) from ures)::int + (select count(*) from cnt)::int as other
  from input x left join (select rid, count(*) as n from s group by rid) w on w.rid = x.rid`;

const pivotOf = (values: Readonly<Record<string, unknown>>, only: ReadonlySet<string>) => indexDoc(values, only).entries.map((e) => ({ name: e.name, t: e.t, tf: e.tf, n: e.n }));

/** Whether the row's change touches a text value (else its `search` is kept: `touchesText`). */
const textChanged = (c: RowChange) => touchesText(Object.fromEntries([...c.changed].map((name) => [name, { before: c.before[name], after: c.after[name] }])));

/** Writes the changes in one statement; `repair` rewrites the pivot of a row that missed pivot rows. */
export async function changeRecordRows(tx: Sql, changes: readonly RowChange[], repair: (change: RowChange) => Promise<void>) {
  if (changes.length === 0) return;
  const input = changes.map((c, i) => ({
    i, tenant: c.tenant, object_uuid: c.objectUuid, rid: c.rid, uuid: c.uuid, first: c.first, vals: c.after, doc: c.first && textChanged(c) ? indexDoc(c.after).text : null,
    at: c.at, by: c.by, revision: c.revision, pivot: pivotOf(c.after, c.changed), old: pivotOf(c.before, c.changed).map(({ tf: _, ...o }) => o),
    changed: [...c.changed], uniq: uniqueEntries(c.after, c.changed),
  }));
  const done = await tx.query<{ i: number; missing: number }>(changeRowsSql, [JSON.stringify(input)], 'records_change_rows');
  for (const d of done) if (d.missing !== 0) await repair(changes[d.i]!);
}
