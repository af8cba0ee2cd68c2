-- Records (issue 5): the data plane. See docs/records.md for the index design.
-- Read models projected inline from record-<uuid> streams (a rebuild truncates them): records,
-- record_fields, record_values, record_counts, record_unique; rm_saved_filters from filter-<uuid>.
-- No DDL per tenant, object or property: every tenant's records share these tables and indexes.

create extension if not exists pg_trgm;
create extension if not exists btree_gin;

-- One row per record and object context: the primary object's row, plus one row per object the
-- record extends (spec 1.4), so that every index is scoped by object without joins.
create table if not exists records (
  tenant text not null,
  object_uuid uuid not null,
  uuid uuid not null,
  rid bigint generated always as identity,
  is_primary boolean not null,
  primary_object_uuid uuid not null,
  object_name text not null,
  extends uuid[] not null default '{}',
  vals jsonb not null,
  search tsvector not null,
  created_at bigint not null,
  updated_at bigint not null,
  created_by uuid,
  updated_by uuid,
  deleted_at bigint,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, uuid, object_uuid)
);
create unique index if not exists records_rid on records (rid);
-- The default order (createdAt desc, uuid).
create index if not exists records_created on records (tenant, object_uuid, created_at, uuid);
-- Free text (tsvector, simple configuration), scoped by object.
create index if not exists records_search on records using gin (object_uuid, search);

-- A small integer per (tenant, object, property): the key of the pivot. Tenant, object and
-- property are all in it, so one index entry never mixes tenants.
create table if not exists record_fields (
  tenant text not null,
  object_uuid uuid not null,
  name text not null,
  fid int generated always as identity,
  primary key (tenant, object_uuid, name)
);
create unique index if not exists record_fields_fid on record_fields (fid);

-- The pivot ("flex index"): one row per atom of a record row's values, typed. `t` is text as sent
-- (its first 200 characters: an index key has a size limit; ties and exactness come from the
-- record's own value), `tf` the whole text folded for contains, `n` numbers and booleans.
--   (fid, t, rid), (fid, n, rid): equality, ranges and ordered walks on any property;
--   (fid, tf) trigrams: contains / startsWith / endsWith on exactly one property.
create table if not exists record_values (
  tenant text not null,
  fid int not null,
  rid bigint not null,
  t text collate "C",
  tf text,
  n double precision
);
create index if not exists record_values_t on record_values (fid, t, rid) where t is not null;
create index if not exists record_values_n on record_values (fid, n, rid) where n is not null;
create index if not exists record_values_tf on record_values using gin (fid, tf gin_trgm_ops) where tf is not null;

-- Live records per object, in shards (by server backend) so concurrent writers do not queue on
-- one row: the total of an unfiltered list, and the size the planner of the index engine uses.
create table if not exists record_counts (
  tenant text not null,
  object_uuid uuid not null,
  shard int not null,
  live bigint not null default 0,
  archived bigint not null default 0,
  primary key (tenant, object_uuid, shard)
);

-- Unique values, reserved by the projection in the append's transaction (for the properties that
-- rm_properties marks unique at that point of the log): a second record with the same value fails
-- on the primary key and its append rolls back. Archived records keep their reservations.
create table if not exists record_unique (
  tenant text not null,
  object_uuid uuid not null,
  name text not null,
  value text not null,
  record_uuid uuid not null,
  primary key (tenant, object_uuid, name, value)
);
create index if not exists record_unique_record on record_unique (tenant, record_uuid);

-- Saved filters (spec 1.13): projected from filter-<uuid> streams.
create table if not exists rm_saved_filters (
  tenant text not null,
  filter_uuid uuid not null,
  name text not null,
  object_name text not null,
  filters jsonb not null,
  groups jsonb not null,
  sort jsonb not null,
  created_by uuid,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  revision int not null,
  primary key (tenant, filter_uuid)
);
create index if not exists rm_saved_filters_live on rm_saved_filters (tenant, name) where deleted_at is null;

-- The company event log (POST /api/v2/events/index): one request, one correlation, or one company
-- over time. Led by the id so a SUPER_ADMIN search across companies uses them too.
create index if not exists events_request_id on events ((metadata ->> 'requestId'), tenant);
create index if not exists events_correlation_id on events ((metadata ->> 'correlationId'), tenant);
create index if not exists events_tenant_time on events (tenant, occurred_at, position);
