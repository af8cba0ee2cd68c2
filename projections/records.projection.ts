import type { StoredEvent } from '../aggregates/kernel/events.js';
import { indexDoc } from '../aggregates/record/record.index-doc.js';
import { recordEventTypes, type RecordEvent, recordUuidOfStream } from '../aggregates/record/record.events.js';
import type { Projection } from './projection.js';
import type { Sql } from '../ports/sql.js';
import { createdRows, createdWithAppend, insertRecordRows, type NewRecordRow } from './records.created-batch.js';
import { changeRecordRows, updatedRows, type LockedRow, type RowChange } from './records.updated-batch.js';
import { updatedWithAppend } from './records.updated-with-append.js';

/**
 * `records` (one row per record and object context), `record_values` (the typed pivot),
 * `record_fields` (pivot keys), `record_counts` and `record_unique`. Every change is guarded by
 * the record's revision on its rows, so a replayed event changes nothing. A create writes all its
 * record rows in one statement (records.created-batch.ts), an update too (records.updated-batch.ts);
 * a run of creates, or of updates of distinct records, is one statement as well.
 */
type Row = LockedRow;

const SHARDS = 16;

/** Pivot entries of the values (of the `only` properties), as parallel arrays. */
function pivotArrays(values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  const { entries } = indexDoc(values, only);
  return [entries.map((e) => e.name), entries.map((e) => e.t), entries.map((e) => e.tf), entries.map((e) => e.n)] as const;
}

// Pivot rows of one record row; $4.. are the parallel arrays. Pivot keys are created on first use;
// a key another transaction created meanwhile is hidden from this statement's snapshot, so the
// caller compares the count and writes again.
const pivotInsert = (want: string, rid: string) => `
ins as (
  insert into record_fields (tenant, object_uuid, name)
  select $1, $2, w.name from ${want} w
   where not exists (select 1 from record_fields f where f.tenant = $1 and f.object_uuid = $2 and f.name = w.name)
  on conflict do nothing returning fid, name
),
f as (select fid, name from ins union all select fid, name from record_fields where tenant = $1 and object_uuid = $2 and name in (select name from ${want})),
s as (insert into record_values (tenant, fid, rid, t, tf, n) select $1, f.fid, ${rid}, left(w.t, 200), w.tf, w.n from ${want} w join f using (name) returning 1)`;

// Deletes pivot rows by their exact keys: each delete is a probe of its partial index.
const pivotDelete = (old: string, rid: string) => `
fo as (select fid, name from record_fields where tenant = $1 and object_uuid = $2 and name in (select name from ${old})),
dt as (
  delete from record_values v using ${old} o join fo using (name)
   where o.t is not null and v.fid = fo.fid and v.t = left(o.t, 200) collate "C" and v.t is not null and v.rid = ${rid} returning 1
),
dn as (
  delete from record_values v using ${old} o join fo using (name)
   where o.n is not null and v.fid = fo.fid and v.n = o.n and v.n is not null and v.rid = ${rid} returning 1
)`;

const rewritePivot = `
with want(name, t, tf, n) as (select * from unnest($4::text[], $5::text[], $6::text[], $7::float8[])),
${pivotDelete('want', '$3')},
del as (select (select count(*) from dt) + (select count(*) from dn) as n)
select (select n from del) as deleted`;

const insertPivot = `
with want(name, t, tf, n) as (select * from unnest($4::text[], $5::text[], $6::text[], $7::float8[])),
${pivotInsert('want', '$3')}
select (select count(*) from s)::int as written`;

/** Writes the pivot rows of the values again (after a hidden key), without duplicates. */
async function repairPivot(tx: Sql, tenant: string, objectUuid: string, rid: number, values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  const [names, ts, tfs, ns] = pivotArrays(values, only);
  if (names.length === 0) return;
  for (let attempt = 0; attempt < 3; attempt++) {
    await tx.query(rewritePivot, [tenant, objectUuid, rid, names, ts, tfs, ns], 'records_pivot_delete');
    const [done] = await tx.query<{ written: number }>(insertPivot, [tenant, objectUuid, rid, names, ts, tfs, ns], 'records_pivot_insert');
    if (done?.written === names.length) return;
  }
}

async function removePivot(tx: Sql, tenant: string, objectUuid: string, rid: number, values: Readonly<Record<string, unknown>>) {
  const [names, ts, tfs, ns] = pivotArrays(values);
  if (names.length > 0) await tx.query(rewritePivot, [tenant, objectUuid, rid, names, ts, tfs, ns], 'records_pivot_delete');
}

async function count(tx: Sql, tenant: string, objectUuid: string, live: number, archived: number) {
  await tx.query(
    `insert into record_counts as c (tenant, object_uuid, shard, live, archived, changes) values ($1, $2, pg_backend_pid() % ${SHARDS}, $3, $4, 1)
     on conflict (tenant, object_uuid, shard) do update set live = c.live + excluded.live, archived = c.archived + excluded.archived, changes = c.changes + 1`,
    [tenant, objectUuid, live, archived],
    'records_count',
  );
}

/** Inserts record rows (records.created-batch.ts), writing again the pivot of a row a hidden key cut short. */
const insertRows = (tx: Sql, rows: readonly NewRecordRow[]) =>
  insertRecordRows(tx, rows, (row, rid) => repairPivot(tx, row.tenant, row.objectUuid, rid, row.vals));

/** The record's rows, locked, when this event is new to them (null when applied already). */
async function rowsToAdvance(tx: Sql, stored: StoredEvent, uuid: string): Promise<Row[] | null> {
  const rows = await tx.query<Row>(
    'select rid, object_uuid, is_primary, vals, revision from records where tenant = $1 and uuid = $2 order by is_primary desc for update',
    [stored.tenant, uuid],
    'records_lock',
  );
  return rows.length > 0 && rows[0]!.revision < stored.revision ? rows : null;
}

async function release(tx: Sql, tenant: string, objectUuid: string, uuid: string) {
  await tx.query('delete from record_unique where tenant = $1 and record_uuid = $3 and object_uuid = $2', [tenant, objectUuid, uuid], 'records_release_unique');
}

/** Writes updated record rows (records.updated-batch.ts), writing again the pivot of a row a hidden key cut short. */
const changeRows = (tx: Sql, changes: readonly RowChange[]) =>
  changeRecordRows(tx, changes, (c) => repairPivot(tx, c.tenant, c.objectUuid, c.rid, c.after, c.changed));

/**
 * A run of updates of distinct records (a group commit's): their rows locked by one statement and
 * changed by one more. A run naming one record twice (a rebuild's) goes one by one.
 */
async function applyUpdates(tx: Sql, run: readonly StoredEvent[]) {
  const key = (tenant: string, uuid: string) => `${tenant}\u0000${uuid}`;
  const keys = run.map((e) => key(e.tenant, recordUuidOfStream(e.streamId)));
  if (run.length === 1 || new Set(keys).size < keys.length) {
    for (const e of run) await recordsProjection.apply(e, tx);
    return;
  }
  const locked = await tx.query<Row & { tenant: string; uuid: string }>(
    `select r.tenant, r.uuid, r.rid, r.object_uuid, r.is_primary, r.vals, r.revision
       from unnest($1::text[], $2::uuid[]) as q(tenant, uuid) join records r on r.tenant = q.tenant and r.uuid = q.uuid
      order by r.rid for update of r`,
    [run.map((e) => e.tenant), run.map((e) => recordUuidOfStream(e.streamId))],
    'records_lock_many',
  );
  const rowsOf = new Map<string, (Row & { tenant: string; uuid: string })[]>();
  for (const row of locked) rowsOf.set(key(row.tenant, row.uuid), [...(rowsOf.get(key(row.tenant, row.uuid)) ?? []), row]);
  const changes = run.flatMap((e, i) => {
    // The primary row first (its values are the record's), as rowsToAdvance gives them.
    const rows = (rowsOf.get(keys[i]!) ?? []).sort((a, b) => Number(b.is_primary) - Number(a.is_primary));
    return rows.length > 0 && rows[0]!.revision < e.revision ? updatedRows(e, rows) : [];
  });
  await changeRows(tx, changes);
}

export const recordsProjection: Projection = {
  name: 'records',
  tables: ['records', 'record_fields', 'record_values', 'record_counts', 'record_unique'],
  handles: recordEventTypes,
  // Creates and updates commit with their append, in its statement (records.created-batch.ts,
  // records.updated-with-append.ts).
  withAppend: [createdWithAppend, updatedWithAppend],
  /**
   * Consecutive creates in one statement (records.created-batch.ts); consecutive updates of
   * distinct records locked by one statement; everything else one by one.
   */
  async applyBatch(events, tx) {
    let created: StoredEvent[] = [];
    let updated: StoredEvent[] = [];
    const flush = async () => {
      if (created.length > 0) await insertRows(tx, created.flatMap(createdRows));
      if (updated.length > 0) await applyUpdates(tx, updated);
      [created, updated] = [[], []];
    };
    for (const event of events) {
      if (event.type === 'RecordCreated' && updated.length === 0) created.push(event);
      else if (event.type === 'RecordUpdated' && created.length === 0) updated.push(event);
      else {
        await flush();
        if (event.type === 'RecordCreated') created.push(event);
        else if (event.type === 'RecordUpdated') updated.push(event);
        else await recordsProjection.apply(event, tx);
      }
    }
    await flush();
  },
  async apply(stored, tx) {
    const event = stored as StoredEvent<RecordEvent> & RecordEvent;
    const { tenant } = stored;
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    const uuid = recordUuidOfStream(stored.streamId);
    switch (event.type) {
      case 'RecordCreated': {
        await insertRows(tx, createdRows(stored));
        return;
      }
      case 'RecordUpdated': {
        const rows = await rowsToAdvance(tx, stored, uuid);
        if (rows) await changeRows(tx, updatedRows(stored, rows));
        return;
      }
      case 'RecordArchived':
      case 'RecordRestored': {
        const rows = await rowsToAdvance(tx, stored, uuid);
        if (!rows) return;
        const archiving = event.type === 'RecordArchived';
        await tx.query(
          `update records set deleted_at = $3, deleted_by = $4, revision = $5 where tenant = $1 and uuid = $2`,
          [tenant, uuid, archiving ? at : null, archiving ? by : null, stored.revision],
          'records_archive',
        );
        for (const row of rows) await count(tx, tenant, row.object_uuid, archiving ? -1 : 1, archiving ? 1 : -1);
        return;
      }
      case 'RecordExtended': {
        const rows = await rowsToAdvance(tx, stored, uuid);
        if (!rows) return;
        const primary = rows[0]!;
        const [meta] = await tx.query<{ primary_object_uuid: string; object_name: string; extends: string[]; created_at: number; created_by: string | null }>(
          'select primary_object_uuid, object_name, extends, created_at, created_by from records where rid = $1',
          [primary.rid],
        );
        const ext = [...meta!.extends, event.data.extendedObjectUuid];
        await tx.query('update records set extends = $3::uuid[], revision = $4 where tenant = $1 and uuid = $2', [tenant, uuid, ext, stored.revision]);
        await insertRows(tx, [{
          tenant, revision: stored.revision, objectUuid: event.data.extendedObjectUuid, uuid, primary: false, primaryObjectUuid: meta!.primary_object_uuid,
          objectName: meta!.object_name, extends: ext, vals: primary.vals, createdAt: meta!.created_at, createdBy: meta!.created_by,
        }]);
        await tx.query(
          `update records set updated_at = p.updated_at, updated_by = p.updated_by from records p
            where p.rid = $1 and records.tenant = $2 and records.uuid = $3 and not records.is_primary`,
          [primary.rid, tenant, uuid],
        );
        return;
      }
      case 'RecordExtensionRemoved': {
        const rows = await rowsToAdvance(tx, stored, uuid);
        if (!rows) return;
        const gone = rows.find((r) => r.object_uuid === event.data.extendedObjectUuid && !r.is_primary);
        const [meta] = await tx.query<{ extends: string[]; deleted_at: number | null }>('select extends, deleted_at from records where rid = $1', [rows[0]!.rid]);
        await tx.query('update records set extends = $3::uuid[], revision = $4 where tenant = $1 and uuid = $2', [
          tenant, uuid, meta!.extends.filter((o) => o !== event.data.extendedObjectUuid), stored.revision,
        ]);
        if (gone) {
          await removePivot(tx, tenant, gone.object_uuid, gone.rid, gone.vals);
          await release(tx, tenant, gone.object_uuid, uuid);
          await tx.query('delete from records where rid = $1', [gone.rid]);
          await count(tx, tenant, gone.object_uuid, -1, 0);
        }
        return;
      }
      case 'RecordUserLinked':
      case 'RecordUserUnlinked': {
        // Only the link and the revision (the stream's head, what a write's snapshot reads): the
        // link is neither a value nor a sort key, so no pivot, count or timestamp changes.
        if (!(await rowsToAdvance(tx, stored, uuid))) return;
        await tx.query('update records set user_uuid = $3, revision = $4 where tenant = $1 and uuid = $2', [
          tenant, uuid, event.type === 'RecordUserLinked' ? event.data.userUuid : null, stored.revision,
        ], 'records_user_link');
        return;
      }
    }
  },
};
