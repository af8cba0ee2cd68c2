/**
 * The pivot rows of `want` (tenant, object_uuid, rid, name, t, tf, n), as CTEs `ins`, `f`, `s` of a
 * set-based statement (records.created-batch.ts, records.updated-batch.ts). Pivot keys are created
 * on first use; a key another transaction created meanwhile is hidden from the statement's
 * snapshot, so the caller compares the rows written (`s` returns their rids) and writes again.
 */
export const pivotRowsCtes = `
ins as (
  insert into record_fields (tenant, object_uuid, name)
  select distinct w.tenant, w.object_uuid, w.name from want w
   where not exists (select 1 from record_fields f where f.tenant = w.tenant and f.object_uuid = w.object_uuid and f.name = w.name)
  on conflict do nothing returning fid, tenant, object_uuid, name
),
f as (
  select fid, tenant, object_uuid, name from ins
  union all
  select fid, tenant, object_uuid, name from record_fields where (tenant, object_uuid, name) in (select tenant, object_uuid, name from want)
),
s as (
  insert into record_values (tenant, fid, rid, t, tf, n)
  select w.tenant, f.fid, w.rid, left(w.t, 200), w.tf, w.n from want w join f using (tenant, object_uuid, name)
  returning rid
)`;

/**
 * Deletes the pivot rows of `old` (tenant, object_uuid, rid, name, t, n: the values an update
 * replaces) by their exact keys, as CTEs `ufo`, `udt`, `udn`: each delete is a probe of its
 * partial index.
 */
export const pivotDeleteCtes = (old: string) => `
ufo as (select fid, tenant, object_uuid, name from record_fields where (tenant, object_uuid, name) in (select tenant, object_uuid, name from ${old})),
udt as (
  delete from record_values v using ${old} o join ufo using (tenant, object_uuid, name)
   where o.t is not null and v.fid = ufo.fid and v.t = left(o.t, 200) collate "C" and v.t is not null and v.rid = o.rid returning 1
),
udn as (
  delete from record_values v using ${old} o join ufo using (tenant, object_uuid, name)
   where o.n is not null and v.fid = ufo.fid and v.n = o.n and v.n is not null and v.rid = o.rid returning 1
)`;

/**
 * The unique reservations of updated rows (`rows`: tenant, uuid, object_uuid, changed, uniq), as
 * CTEs `ukeys`, `urel`, `ures`: a reservation the record already holds is kept (an e-mail changing
 * case keeps its key), those of changed properties it no longer holds are released, the new ones
 * taken; any value another record holds violates the key.
 */
export const uniqueMoveCtes = (rows: string) => `
ukeys as (
  select w.tenant, w.uuid, p.object_uuid, p.name, case when p.format = 'email' then lower(v.value) else v.value end as value
    from ${rows} w cross join lateral jsonb_to_recordset(w.uniq) as v(name text, value text)
    join rm_properties p on p.tenant = w.tenant and p.object_uuid = w.object_uuid and p.name = v.name and p.is_unique and p.deleted_at is null
),
urel as (
  delete from record_unique r using ${rows} w
   where r.tenant = w.tenant and r.record_uuid = w.uuid and r.object_uuid = w.object_uuid and r.name = any(w.changed)
     and not exists (select 1 from ukeys k where k.tenant = r.tenant and k.uuid = r.record_uuid and k.object_uuid = r.object_uuid and k.name = r.name and k.value = r.value)
  returning 1
),
ures as (
  insert into record_unique (tenant, object_uuid, name, value, record_uuid)
  select k.tenant, k.object_uuid, k.name, k.value, k.uuid from ukeys k
   where not exists (select 1 from record_unique r where r.tenant = k.tenant and r.object_uuid = k.object_uuid and r.name = k.name and r.value = k.value and r.record_uuid = k.uuid)
  returning 1
)`;

/** Adds each row of `rows` (tenant, object_uuid) to its object's change count (migration 0008), as CTE `name`. */
export const changeCountCte = (name: string, rows: string) => `
${name} as (
  insert into record_counts as c (tenant, object_uuid, shard, changes)
  select tenant, object_uuid, pg_backend_pid() % 16, count(*) from ${rows} group by tenant, object_uuid
  on conflict (tenant, object_uuid, shard) do update set changes = c.changes + excluded.changes
  returning 1
)`;
