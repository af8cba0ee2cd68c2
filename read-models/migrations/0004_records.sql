-- Records (issue 5): the data plane. See docs/records.md for the index design.
-- Read models projected inline from record-<uuid> streams (a rebuild truncates them): records,
-- record_fields, record_sort, record_counts, record_unique.

create extension if not exists pg_trgm;
create extension if not exists btree_gin;

-- One row per record and object context: the primary object's row, plus one row per object the
-- record extends (spec 1.4), so that every index below is scoped by object without joins.
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
  -- Folded text atoms "\x01<property>\x02<value>", for contains / startsWith / endsWith.
  tdoc text not null default '',
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
-- The default order (createdAt desc, uuid). Other system fields sort through the same plans as properties.
create index if not exists records_created on records (tenant, object_uuid, created_at, uuid);

-- Equality on any property, scoped by object: jsonb_path_ops hashes the path object -> property
-- -> value, so one posting list holds exactly one object's records with that value.
create or replace function record_scope(object_uuid uuid, vals jsonb) returns jsonb
  language sql immutable parallel safe as $$ select jsonb_build_object(object_uuid::text, vals) $$;
create index if not exists records_scoped_vals on records using gin (record_scope(object_uuid, vals) jsonb_path_ops);
-- contains / startsWith / endsWith (trigrams) and free text (tsvector), scoped by object.
create index if not exists records_tdoc on records using gin (object_uuid, tdoc gin_trgm_ops);
create index if not exists records_search on records using gin (object_uuid, search);

-- A small integer per (tenant, object, property): the key of the ordered pivot.
create table if not exists record_fields (
  tenant text not null,
  object_uuid uuid not null,
  name text not null,
  fid int generated always as identity,
  primary key (tenant, object_uuid, name)
);
create unique index if not exists record_fields_fid on record_fields (fid);

-- The ordered pivot ("flex index"): one row per scalar value of a record row, typed. Sorting on
-- any property walks (fid, value) in order; text keeps its first 200 characters (ties are broken
-- on the full value).
create table if not exists record_sort (
  tenant text not null,
  fid int not null,
  rid bigint not null,
  t text collate "C",
  n double precision
);
create index if not exists record_sort_t on record_sort (fid, t, rid) where t is not null;
create index if not exists record_sort_n on record_sort (fid, n, rid) where n is not null;

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
