import type { StoredEvent } from '../aggregates/kernel/events.js';
import { indexDoc } from '../aggregates/record/record.index-doc.js';
import { recordEventTypes, RECORD_STREAM_PREFIX, type RecordEvent } from '../aggregates/record/record.events.js';
import type { Projection, Sql } from './projection.js';
import { createdRows, insertRecordRows, uniqueEntries, type NewRecordRow } from './records.created-batch.js';

/**
 * `records` (one row per record and object context), `record_values` (the typed pivot),
 * `record_fields` (pivot keys), `record_counts` and `record_unique`. Every change is guarded by
 * the record's revision on its rows, so a replayed event changes nothing. Each record row is
 * written in one statement, so a create or an update costs one round trip per object context.
 */
interface Row {
  rid: number;
  object_uuid: string;
  is_primary: boolean;
  vals: Record<string, unknown>;
  revision: number;
}

const SHARDS = 16;

/** Pivot entries of the values (of the `only` properties), as parallel arrays. */
function pivotArrays(values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  const { entries } = indexDoc(values, only);
  return [entries.map((e) => e.name), entries.map((e) => e.t), entries.map((e) => e.tf), entries.map((e) => e.n)] as const;
}

/** Scalar values as reservation keys, as parallel arrays. */
function uniqueArrays(values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  const entries = uniqueEntries(values, only);
  return [entries.map((e) => e.name), entries.map((e) => e.value)] as const;
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

// One statement per record row for an update: the values (on every row, once), the pivot rows and
// the unique reservations of the changed properties. A reservation this record already holds is
// kept (an e-mail changing case keeps its key); any other taken value violates the key.
const changeRow = `
with u as (
  update records set vals = $8::jsonb, search = scoped_tsvector(object_uuid, to_tsvector('simple', $9)), updated_at = $10, updated_by = $11, revision = $12
   where tenant = $1 and uuid = $13 and $14 returning 1
),
old(name, t, tf, n) as (select * from unnest($15::text[], $16::text[], $17::text[], $18::float8[])),
${pivotDelete('old', '$3')},
want(name, t, tf, n) as (select * from unnest($4::text[], $5::text[], $6::text[], $7::float8[])),
${pivotInsert('want', '$3')},
keys as (
  select p.object_uuid, p.name, case when p.format = 'email' then lower(v.value) else v.value end as value
    from unnest($20::text[], $21::text[]) as v(name, value)
    join rm_properties p on p.tenant = $1 and p.object_uuid = $2 and p.name = v.name and p.is_unique and p.deleted_at is null
),
rel as (
  delete from record_unique x
   where x.tenant = $1 and x.record_uuid = $13 and x.object_uuid = $2 and x.name = any($19::text[])
     and not exists (select 1 from keys k where k.name = x.name and k.value = x.value)
  returning 1
),
res as (
  insert into record_unique (tenant, object_uuid, name, value, record_uuid)
  select $1, k.object_uuid, k.name, k.value, $13 from keys k
   where not exists (select 1 from record_unique x where x.tenant = $1 and x.object_uuid = k.object_uuid and x.name = k.name and x.value = k.value and x.record_uuid = $13)
  returning 1
),
cnt as (
  insert into record_counts as c (tenant, object_uuid, shard, changes) values ($1, $2, pg_backend_pid() % ${SHARDS}, 1)
  on conflict (tenant, object_uuid, shard) do update set changes = c.changes + 1
  returning 1
)
select (select count(*) from s)::int as written, (select count(*) from u)::int + (select count(*) from dt)::int + (select count(*) from dn)::int
       + (select count(*) from rel)::int + (select count(*) from res)::int + (select count(*) from cnt)::int as other`;

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

/** An update on the record's rows (locked, and behind the event). */
async function applyUpdate(tx: Sql, stored: StoredEvent, rows: readonly Row[]) {
  const event = stored as StoredEvent<RecordEvent> & RecordEvent & { type: 'RecordUpdated' };
  const { tenant } = stored;
  const uuid = stored.streamId.slice(RECORD_STREAM_PREFIX.length);
  const before = rows[0]!.vals;
  const after: Record<string, unknown> = { ...before };
  for (const [name, change] of Object.entries(event.data.changes)) {
    if (change.after === null || change.after === undefined) delete after[name];
    else after[name] = change.after;
  }
  const changed = new Set(Object.keys(event.data.changes));
  const text = indexDoc(after).text;
  const [oldNames, oldTs, oldTfs, oldNs] = pivotArrays(before, changed);
  const [names, ts, tfs, ns] = pivotArrays(after, changed);
  const [uniqueNames, uniqueValues] = uniqueArrays(after, changed);
  for (const [i, row] of rows.entries()) {
    const [done] = await tx.query<{ written: number }>(
      changeRow,
      [
        tenant, row.object_uuid, row.rid, names, ts, tfs, ns, JSON.stringify(after), text, stored.metadata.occurredAt, stored.metadata.userUuid,
        stored.revision, uuid, i === 0, oldNames, oldTs, oldTfs, oldNs, [...changed], uniqueNames, uniqueValues,
      ],
      'records_change_row',
    );
    if (done!.written !== names.length) await repairPivot(tx, tenant, row.object_uuid, row.rid, after, changed);
  }
}

/**
 * A run of updates of distinct records (a group commit's): their rows locked by one statement,
 * then each update on its rows. A run naming one record twice (a rebuild's) goes one by one.
 */
async function applyUpdates(tx: Sql, run: readonly StoredEvent[]) {
  const key = (tenant: string, uuid: string) => `${tenant}\u0000${uuid}`;
  const keys = run.map((e) => key(e.tenant, e.streamId.slice(RECORD_STREAM_PREFIX.length)));
  if (run.length === 1 || new Set(keys).size < keys.length) {
    for (const e of run) await recordsProjection.apply(e, tx);
    return;
  }
  const locked = await tx.query<Row & { tenant: string; uuid: string }>(
    `select r.tenant, r.uuid, r.rid, r.object_uuid, r.is_primary, r.vals, r.revision
       from unnest($1::text[], $2::uuid[]) as q(tenant, uuid) join records r on r.tenant = q.tenant and r.uuid = q.uuid
      order by r.rid for update of r`,
    [run.map((e) => e.tenant), run.map((e) => e.streamId.slice(RECORD_STREAM_PREFIX.length))],
    'records_lock_many',
  );
  const rowsOf = new Map<string, (Row & { tenant: string; uuid: string })[]>();
  for (const row of locked) rowsOf.set(key(row.tenant, row.uuid), [...(rowsOf.get(key(row.tenant, row.uuid)) ?? []), row]);
  for (const [i, e] of run.entries()) {
    // The primary row first (its values are the record's), as rowsToAdvance gives them.
    const rows = (rowsOf.get(keys[i]!) ?? []).sort((a, b) => Number(b.is_primary) - Number(a.is_primary));
    if (rows.length > 0 && rows[0]!.revision < e.revision) await applyUpdate(tx, e, rows);
  }
}

export const recordsProjection: Projection = {
  name: 'records',
  tables: ['records', 'record_fields', 'record_values', 'record_counts', 'record_unique'],
  handles: recordEventTypes,
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
    const uuid = stored.streamId.slice(RECORD_STREAM_PREFIX.length);
    switch (event.type) {
      case 'RecordCreated': {
        await insertRows(tx, createdRows(stored));
        return;
      }
      case 'RecordUpdated': {
        const rows = await rowsToAdvance(tx, stored, uuid);
        if (rows) await applyUpdate(tx, stored, rows);
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
    }
  },
};
