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
