import type { StoredEvent } from '../aggregates/kernel/events.js';
import { indexDoc } from '../aggregates/record/record.index-doc.js';
import { recordEventTypes, RECORD_STREAM_PREFIX, type RecordEvent } from '../aggregates/record/record.events.js';
import type { Projection, Sql } from './projection.js';

/**
 * `records` (one row per record and object context), `record_sort` (the ordered pivot),
 * `record_fields` (pivot keys) and `record_counts`. Every change is guarded by the record's
 * revision on its rows, so a replayed event changes nothing.
 */
interface Row {
  rid: number;
  object_uuid: string;
  is_primary: boolean;
  vals: Record<string, unknown>;
  revision: number;
}

const SHARDS = 16;

/** Scalar values as reservation keys: a string as is, anything else as its JSON. */
function uniqueArrays(values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  const entries = Object.entries(values).filter(([name, v]) => (!only || only.has(name)) && v !== null && typeof v !== 'object');
  return [entries.map(([name]) => name), entries.map(([, v]) => (typeof v === 'string' ? v : JSON.stringify(v)))];
}

async function release(tx: Sql, tenant: string, objectUuid: string, uuid: string, names: readonly string[] | null) {
  await tx.query(
    'delete from record_unique where tenant = $1 and record_uuid = $3 and object_uuid = $2 and ($4::text[] is null or name = any($4::text[]))',
    [tenant, objectUuid, uuid, names],
    'records_release_unique',
  );
}

/** Pivot entries of one record row: the scalar values, typed. */
function sortArrays(values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  const entries = indexDoc(values).sortable.filter((e) => !only || only.has(e.name));
  return [entries.map((e) => e.name), entries.map((e) => e.t), entries.map((e) => e.n)];
}

// Ensures the pivot keys of the names exist, then inserts one pivot row per value. A concurrent
// first use of a name can hide a key from this statement's snapshot: the caller checks the count.
const insertSort = `
with want(name, t, n) as (select * from unnest($4::text[], $5::text[], $6::float8[])),
ins as (
  insert into record_fields (tenant, object_uuid, name)
  select $1, $2, w.name from want w
   where not exists (select 1 from record_fields f where f.tenant = $1 and f.object_uuid = $2 and f.name = w.name)
  on conflict do nothing returning fid, name
),
f as (select fid, name from ins union all select fid, name from record_fields where tenant = $1 and object_uuid = $2 and name = any($4::text[]))
insert into record_sort (tenant, fid, rid, t, n)
select $1, f.fid, $3, left(w.t, 200), w.n from want w join f using (name)
returning fid`;

// Text and numbers apart, so each delete is an exact probe of its partial index.
const deleteSort = `
with o(name, t, n) as (select * from unnest($4::text[], $5::text[], $6::float8[])),
f as (select fid, name from record_fields where tenant = $1 and object_uuid = $2 and name = any($4::text[])),
dt as (
  delete from record_sort s using o join f using (name)
   where o.t is not null and s.fid = f.fid and s.t = left(o.t, 200) collate "C" and s.t is not null and s.rid = $3 returning 1
),
dn as (
  delete from record_sort s using o join f using (name)
   where o.n is not null and s.fid = f.fid and s.n = o.n and s.n is not null and s.rid = $3 returning 1
)
select (select count(*) from dt) + (select count(*) from dn) as deleted`;

async function addSort(tx: Sql, tenant: string, objectUuid: string, rid: number, values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  const [names, ts, ns] = sortArrays(values, only);
  if (names.length === 0) return;
  for (let attempt = 0; ; attempt++) {
    const done = await tx.query(insertSort, [tenant, objectUuid, rid, names, ts, ns], 'records_insert_sort');
    if (done.length === names.length || attempt === 3) return;
    // Another transaction created a key meanwhile: remove what we wrote and write it again.
    await tx.query(deleteSort, [tenant, objectUuid, rid, names, ts, ns], 'records_delete_sort');
  }
}

async function removeSort(tx: Sql, tenant: string, objectUuid: string, rid: number, values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>) {
  const [names, ts, ns] = sortArrays(values, only);
  if (names.length > 0) await tx.query(deleteSort, [tenant, objectUuid, rid, names, ts, ns], 'records_delete_sort');
}

async function count(tx: Sql, tenant: string, objectUuid: string, live: number, archived: number) {
  await tx.query(
    `insert into record_counts as c (tenant, object_uuid, shard, live, archived) values ($1, $2, pg_backend_pid() % ${SHARDS}, $3, $4)
     on conflict (tenant, object_uuid, shard) do update set live = c.live + excluded.live, archived = c.archived + excluded.archived`,
    [tenant, objectUuid, live, archived],
    'records_count',
  );
}

// One statement per record row: the row, its pivot entries (creating pivot keys on first use),
// its unique reservations and the live count. A unique value another record holds violates
// record_unique's key, and the append rolls back.
const insertRow = `
with r as (
  insert into records (tenant, object_uuid, uuid, is_primary, primary_object_uuid, object_name, extends, vals, tdoc, search,
                       created_at, updated_at, created_by, updated_by, revision)
  values ($1, $2, $3, $4, $5, $6, $7::uuid[], $8::jsonb, $9, to_tsvector('simple', $10), $11, $11, $12, $12, $13)
  on conflict do nothing returning rid
),
want(name, t, n) as (select * from unnest($14::text[], $15::text[], $16::float8[])),
ins as (
  insert into record_fields (tenant, object_uuid, name)
  select $1, $2, w.name from want w
   where exists (select 1 from r) and not exists (select 1 from record_fields f where f.tenant = $1 and f.object_uuid = $2 and f.name = w.name)
  on conflict do nothing returning fid, name
),
f as (select fid, name from ins union all select fid, name from record_fields where tenant = $1 and object_uuid = $2 and name = any($14::text[])),
s as (insert into record_sort (tenant, fid, rid, t, n) select $1, f.fid, r.rid, left(w.t, 200), w.n from r, want w join f using (name) returning 1),
u as (
  insert into record_unique (tenant, object_uuid, name, value, record_uuid)
  select $1, p.object_uuid, p.name, case when p.format = 'email' then lower(v.value) else v.value end, $3
    from r, unnest($17::text[], $18::text[]) as v(name, value)
    join rm_properties p on p.tenant = $1 and p.object_uuid = $2 and p.name = v.name and p.is_unique and p.deleted_at is null
  returning 1
),
c as (
  insert into record_counts as c (tenant, object_uuid, shard, live, archived) select $1, $2, pg_backend_pid() % ${SHARDS}, 1, 0 from r
  on conflict (tenant, object_uuid, shard) do update set live = c.live + 1
  returning 1
)
select (select rid from r) as rid, (select count(*) from s)::int as sorted, (select count(*) from u)::int + (select count(*) from c)::int as other`;

async function insertObjectRow(
  tx: Sql,
  stored: StoredEvent,
  row: { objectUuid: string; uuid: string; primary: boolean; primaryObjectUuid: string; objectName: string; extends: readonly string[]; vals: Record<string, unknown>; createdAt: number; createdBy: string | null },
) {
  const doc = indexDoc(row.vals);
  const [names, ts, ns] = sortArrays(row.vals);
  const [uniqueNames, uniqueValues] = uniqueArrays(row.vals);
  const [done] = await tx.query<{ rid: number | null; sorted: number }>(
    insertRow,
    [
      stored.tenant, row.objectUuid, row.uuid, row.primary, row.primaryObjectUuid, row.objectName, row.extends, JSON.stringify(row.vals), doc.tdoc, doc.text,
      row.createdAt, row.createdBy, stored.revision, names, ts, ns, uniqueNames, uniqueValues,
    ],
    'records_insert',
  );
  // A pivot key another transaction created meanwhile was hidden from the statement: write them again.
  if (done?.rid != null && done.sorted !== names.length) {
    await removeSort(tx, stored.tenant, row.objectUuid, done.rid, row.vals);
    await addSort(tx, stored.tenant, row.objectUuid, done.rid, row.vals);
  }
}

// One statement per record row for an update: the values (all rows, once), the pivot entries and
// the unique reservations of the changed properties. A reservation this record already holds is
// kept (an e-mail changing case keeps its key); any other taken value violates the key.
const changeRow = `
with u as (
  update records set vals = $6::jsonb, tdoc = $7, search = to_tsvector('simple', $8), updated_at = $9, updated_by = $10, revision = $11
   where tenant = $1 and uuid = $4 and $5 returning 1
),
o(name, t, n) as (select * from unnest($12::text[], $13::text[], $14::float8[])),
fo as (select fid, name from record_fields where tenant = $1 and object_uuid = $2 and name = any($12::text[])),
dt as (
  delete from record_sort s using o join fo using (name)
   where o.t is not null and s.fid = fo.fid and s.t = left(o.t, 200) collate "C" and s.t is not null and s.rid = $3 returning 1
),
dn as (
  delete from record_sort s using o join fo using (name)
   where o.n is not null and s.fid = fo.fid and s.n = o.n and s.n is not null and s.rid = $3 returning 1
),
want(name, t, n) as (select * from unnest($15::text[], $16::text[], $17::float8[])),
ins as (
  insert into record_fields (tenant, object_uuid, name)
  select $1, $2, w.name from want w
   where not exists (select 1 from record_fields f where f.tenant = $1 and f.object_uuid = $2 and f.name = w.name)
  on conflict do nothing returning fid, name
),
f as (select fid, name from ins union all select fid, name from record_fields where tenant = $1 and object_uuid = $2 and name = any($15::text[])),
s as (insert into record_sort (tenant, fid, rid, t, n) select $1, f.fid, $3, left(w.t, 200), w.n from want w join f using (name) returning 1),
keys as (
  select p.object_uuid, p.name, case when p.format = 'email' then lower(v.value) else v.value end as value
    from unnest($19::text[], $20::text[]) as v(name, value)
    join rm_properties p on p.tenant = $1 and p.object_uuid = $2 and p.name = v.name and p.is_unique and p.deleted_at is null
),
rel as (
  delete from record_unique x
   where x.tenant = $1 and x.record_uuid = $4 and x.object_uuid = $2 and x.name = any($18::text[])
     and not exists (select 1 from keys k where k.name = x.name and k.value = x.value)
  returning 1
),
res as (
  insert into record_unique (tenant, object_uuid, name, value, record_uuid)
  select $1, k.object_uuid, k.name, k.value, $4 from keys k
   where not exists (select 1 from record_unique x where x.tenant = $1 and x.object_uuid = k.object_uuid and x.name = k.name and x.value = k.value and x.record_uuid = $4)
  returning 1
)
select (select count(*) from s)::int as sorted, (select count(*) from u)::int + (select count(*) from dt)::int + (select count(*) from dn)::int
       + (select count(*) from rel)::int + (select count(*) from res)::int as other`;

/** The record's rows, locked, when this event is new to them (null when applied already). */
async function rowsToAdvance(tx: Sql, stored: StoredEvent, uuid: string): Promise<Row[] | null> {
  const rows = await tx.query<Row>(
    'select rid, object_uuid, is_primary, vals, revision from records where tenant = $1 and uuid = $2 for update',
    [stored.tenant, uuid],
    'records_lock',
  );
  return rows.length > 0 && rows[0]!.revision < stored.revision ? rows : null;
}

export const recordsProjection: Projection = {
  name: 'records',
  tables: ['records', 'record_fields', 'record_sort', 'record_counts', 'record_unique'],
  handles: recordEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<RecordEvent> & RecordEvent;
    const { tenant } = stored;
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    const uuid = stored.streamId.slice(RECORD_STREAM_PREFIX.length);
    switch (event.type) {
      case 'RecordCreated': {
        const d = event.data;
        const ext = d.extends ?? [];
        for (const objectUuid of [d.objectUuid, ...ext]) {
          await insertObjectRow(tx, stored, {
            objectUuid, uuid, primary: objectUuid === d.objectUuid, primaryObjectUuid: d.objectUuid, objectName: d.objectName,
            extends: ext, vals: d.properties, createdAt: at, createdBy: by,
          });
        }
        return;
      }
      case 'RecordUpdated': {
        const rows = await rowsToAdvance(tx, stored, uuid);
        if (!rows) return;
        const before = rows.find((r) => r.is_primary)?.vals ?? rows[0]!.vals;
        const after: Record<string, unknown> = { ...before };
        for (const [name, change] of Object.entries(event.data.changes)) {
          if (change.after === null || change.after === undefined) delete after[name];
          else after[name] = change.after;
        }
        const doc = indexDoc(after);
        const changed = new Set(Object.keys(event.data.changes));
        const [oldNames, oldTs, oldNs] = sortArrays(before, changed);
        const [newNames, newTs, newNs] = sortArrays(after, changed);
        const [uniqueNames, uniqueValues] = uniqueArrays(after, changed);
        for (const [i, row] of rows.entries()) {
          const [done] = await tx.query<{ sorted: number }>(
            changeRow,
            [
              tenant, row.object_uuid, row.rid, uuid, i === 0, JSON.stringify(after), doc.tdoc, doc.text, at, by, stored.revision,
              oldNames, oldTs, oldNs, newNames, newTs, newNs, [...changed], uniqueNames, uniqueValues,
            ],
            'records_change_row',
          );
          if (done!.sorted !== newNames.length) {
            await removeSort(tx, tenant, row.object_uuid, row.rid, after, changed);
            await addSort(tx, tenant, row.object_uuid, row.rid, after, changed);
          }
        }
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
        const primary = rows.find((r) => r.is_primary)!;
        const [meta] = await tx.query<{ primary_object_uuid: string; object_name: string; extends: string[]; created_at: number; created_by: string | null }>(
          'select primary_object_uuid, object_name, extends, created_at, created_by from records where rid = $1',
          [primary.rid],
        );
        const ext = [...meta!.extends, event.data.extendedObjectUuid];
        await tx.query('update records set extends = $3::uuid[], revision = $4 where tenant = $1 and uuid = $2', [tenant, uuid, ext, stored.revision]);
        await insertObjectRow(tx, stored, {
          objectUuid: event.data.extendedObjectUuid, uuid, primary: false, primaryObjectUuid: meta!.primary_object_uuid, objectName: meta!.object_name,
          extends: ext, vals: primary.vals, createdAt: meta!.created_at, createdBy: meta!.created_by,
        });
        await tx.query('update records set deleted_at = p.deleted_at, deleted_by = p.deleted_by, updated_at = p.updated_at, updated_by = p.updated_by from records p where p.rid = $1 and records.tenant = $2 and records.uuid = $3 and not records.is_primary', [primary.rid, tenant, uuid]);
        return;
      }
      case 'RecordExtensionRemoved': {
        const rows = await rowsToAdvance(tx, stored, uuid);
        if (!rows) return;
        const gone = rows.find((r) => r.object_uuid === event.data.extendedObjectUuid && !r.is_primary);
        const primary = rows.find((r) => r.is_primary)!;
        const [meta] = await tx.query<{ extends: string[]; deleted_at: number | null }>('select extends, deleted_at from records where rid = $1', [primary.rid]);
        await tx.query('update records set extends = $3::uuid[], revision = $4 where tenant = $1 and uuid = $2', [
          tenant, uuid, meta!.extends.filter((o) => o !== event.data.extendedObjectUuid), stored.revision,
        ]);
        if (gone) {
          await removeSort(tx, tenant, gone.object_uuid, gone.rid, gone.vals);
          await release(tx, tenant, gone.object_uuid, uuid, null);
          await tx.query('delete from records where rid = $1', [gone.rid]);
          await count(tx, tenant, gone.object_uuid, meta!.deleted_at === null ? -1 : 0, meta!.deleted_at === null ? 0 : -1);
        }
        return;
      }
    }
  },
};
