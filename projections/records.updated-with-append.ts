import { indexDoc, touchesText } from '../aggregates/record/record.index-doc.js';
import { RECORD_STREAM_PREFIX, type RecordEvent, recordUuidOfStream } from '../aggregates/record/record.events.js';
import type { RecordState } from '../aggregates/record/record.decider.js';
import { uniqueEntries } from './records.created-batch.js';
import type { FusedWrite, PendingEvent } from './projection.js';
import { changeCountCte, pivotDeleteCtes, pivotRowsCtes, uniqueMoveCtes } from './records.pivot-sql.js';

type Updated = Extract<RecordEvent, { type: 'RecordUpdated' }>;

/** The columns of `input` (jsonb_to_recordset): one entry per updated record. */
const inputColumns = `i int, tenant text, uuid uuid, expected bigint, revision bigint, set jsonb, removed text[], doc text,
    at bigint, by uuid, pivot jsonb, old jsonb, changed text[], uniq jsonb`;

/**
 * The writes of record updates as CTEs of the append statement itself: what
 * `changeRecordRows` (records.updated-batch.ts) writes after locking the rows, taken instead from
 * the event (the changed values before and after) and the writer's state after it (the text of
 * the free-text index). Only records whose append was made (`heads`), only rows still at the
 * revision the writer decided on. `check` fails the statement (22P02, and the store appends the
 * usual way) when a record's rows were not all at that revision or a pivot key hidden by a
 * concurrent transaction left pivot rows out.
 */
function updatedRowsWithAppend(param: string) {
  const ctes = `uin as (
  select x.* from jsonb_to_recordset(${param}::jsonb) as x(${inputColumns})
   where exists (select 1 from heads h where h.tenant = x.tenant and h.stream_id = '${RECORD_STREAM_PREFIX}' || x.uuid::text)
),
ur as (
  update records r set vals = (r.vals - x.removed) || x.set, search = case when x.doc is null then r.search else scoped_tsvector(r.object_uuid, to_tsvector('simple', x.doc)) end,
         updated_at = x.at, updated_by = x.by, revision = x.revision
    from uin x where r.tenant = x.tenant and r.uuid = x.uuid and r.revision = x.expected
  returning r.tenant, r.uuid, r.rid, r.object_uuid
),
urow as (select ur.rid, ur.object_uuid, x.* from ur join uin x on x.tenant = ur.tenant and x.uuid = ur.uuid),
uold as (select w.tenant, w.object_uuid, w.rid, o.name, o.t, o.n from urow w, jsonb_to_recordset(w.old) as o(name text, t text, n float8)),
${pivotDeleteCtes('uold')},
want as (select w.tenant, w.object_uuid, w.rid, p.name, p.t, p.tf, p.n from urow w, jsonb_to_recordset(w.pivot) as p(name text, t text, tf text, n float8)),
${pivotRowsCtes},
${uniqueMoveCtes('urow')},
${changeCountCte('ucnt', 'ur')}`;
  // A record appended but not updated on every row it has, or a row short of pivot rows: the
  // uuid read as an integer fails the statement.
  const check = `(select count(*) from uin x, lateral (select count(*) as n from ur where ur.tenant = x.tenant and ur.uuid = x.uuid) u
     where (case when u.n = 0 or u.n <> (select count(*) from records r where r.tenant = x.tenant and r.uuid = x.uuid)
                 then x.uuid::text end)::int is not null)
   + (select count(*) from urow w left join (select rid, count(*) as n from s group by rid) c on c.rid = w.rid
     where (case when jsonb_array_length(w.pivot) <> coalesce(c.n, 0) then w.uuid::text end)::int is not null)
   + (select count(*) from udt) + (select count(*) from udn) + (select count(*) from urel) + (select count(*) from ures) + (select count(*) from ucnt)`;
  return { ctes, check };
}

const pivotOf = (values: Readonly<Record<string, unknown>>) => indexDoc(values).entries.map((e) => ({ name: e.name, t: e.t, tf: e.tf, n: e.n }));

/**
 * The input of `updatedRowsWithAppend`: each update's changed values, and the text of the record
 * after it, null when no text value changed (its `search` stays: no tsvector made, no GIN entry written).
 */
function updatedRowsInput(events: readonly PendingEvent[]): string {
  return JSON.stringify(
    events.map((e, i) => {
      const { changes } = (e as unknown as { data: Updated['data'] }).data;
      const after = (e.stateAfter as RecordState).properties;
      const set: Record<string, unknown> = {};
      const before: Record<string, unknown> = {};
      const removed: string[] = [];
      for (const [name, change] of Object.entries(changes)) {
        if (change.after === null || change.after === undefined) removed.push(name);
        else set[name] = change.after;
        if (change.before !== null && change.before !== undefined) before[name] = change.before;
      }
      return {
        i, tenant: e.tenant, uuid: recordUuidOfStream(e.streamId), expected: e.revision - 1, revision: e.revision, set, removed,
        doc: touchesText(changes) ? indexDoc(after).text : null, at: e.metadata.occurredAt, by: e.metadata.userUuid, pivot: pivotOf(set),
        old: pivotOf(before).map(({ tf: _, ...o }) => o), changed: Object.keys(changes), uniq: uniqueEntries(set),
      };
    }),
  );
}

/** A record state as the decider evolves it: what an update's writer hands the append (`AppendOptions.stateAfter`). */
const isRecordState = (s: unknown): s is RecordState =>
  typeof s === 'object' && s !== null && (s as RecordState).exists === true && typeof (s as RecordState).properties === 'object';

/** Updates of records whose writer gave its state after the update: written with their append. */
export const updatedWithAppend: FusedWrite = {
  name: 'append_with_record_updates',
  accepts: (e) => e.type === 'RecordUpdated' && e.revision > 0 && isRecordState(e.stateAfter),
  sql: updatedRowsWithAppend,
  input: updatedRowsInput,
};
