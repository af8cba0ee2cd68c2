-- Dynamic schema (issue 4): objects, properties, relations, record links, traits.
-- All are read models projected inline from the object-, property-, relation-, link- and trait-
-- streams; a rebuild truncates them. Rows of deleted things stay (deleted_at, purged_at,
-- removed_at) so that replaying an old event can never bring them back (idempotent projections).

create table if not exists rm_objects (
  tenant text not null,
  object_uuid uuid not null,
  name text not null,
  label text not null,
  plural text not null,
  description text not null default '',
  icon text not null default '',
  grp text,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  revision int not null,
  primary key (tenant, object_uuid)
);
-- A name stays taken while its object is soft-deleted, so a restore never collides.
create unique index if not exists rm_objects_name_unique on rm_objects (tenant, name);

create table if not exists rm_properties (
  tenant text not null,
  property_uuid uuid not null,
  object_uuid uuid not null,
  name text not null,
  label text not null,
  type text not null,
  format text not null,
  options jsonb,
  required boolean not null,
  is_unique boolean not null,
  min_length int,
  max_length int,
  min_value double precision,
  max_value double precision,
  pattern text,
  description text not null default '',
  icon text not null default '',
  grp text,
  relation_uuid uuid,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  revision int not null,
  primary key (tenant, property_uuid)
);
create unique index if not exists rm_properties_name_unique on rm_properties (tenant, object_uuid, name);

create table if not exists rm_relations (
  tenant text not null,
  relation_uuid uuid not null,
  name text not null,
  label text not null,
  description text not null default '',
  from_object_uuid uuid not null,
  to_object_uuid uuid not null,
  cardinality text not null,
  direction text not null,
  from_name text not null,
  to_name text,
  edge_properties jsonb not null default '[]'::jsonb,
  idx int not null default 0,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  purged_at bigint,
  revision int not null,
  primary key (tenant, relation_uuid)
);
create unique index if not exists rm_relations_name_unique on rm_relations (tenant, from_object_uuid, name) where purged_at is null;
create index if not exists rm_relations_to on rm_relations (tenant, to_object_uuid) where purged_at is null;

-- Connections between records. one_per_from / one_per_to come from the relation's cardinality
-- (immutable); the partial unique indexes enforce it atomically: a second connection that breaks
-- it fails in the append's transaction, so the append rolls back.
create table if not exists rm_record_links (
  tenant text not null,
  relation_uuid uuid not null,
  from_record uuid not null,
  to_record uuid not null,
  edge_properties jsonb not null default '{}'::jsonb,
  one_per_from boolean not null,
  one_per_to boolean not null,
  connected boolean not null,
  created_at bigint not null,
  updated_at bigint not null,
  revision int not null,
  primary key (tenant, relation_uuid, from_record, to_record)
);
create unique index if not exists rm_record_links_one_per_from on rm_record_links (tenant, relation_uuid, from_record) where one_per_from and connected;
create unique index if not exists rm_record_links_one_per_to on rm_record_links (tenant, relation_uuid, to_record) where one_per_to and connected;
create index if not exists rm_record_links_to on rm_record_links (tenant, to_record) where connected;
create index if not exists rm_record_links_from on rm_record_links (tenant, from_record) where connected;

create table if not exists rm_traits (
  tenant text not null,
  object_uuid uuid not null,
  trait text not null,
  config jsonb not null,
  created_at bigint not null,
  updated_at bigint not null,
  removed_at bigint,
  revision int not null,
  primary key (tenant, object_uuid, trait)
);
-- One object per company holds the User trait: its records are the user profiles.
create unique index if not exists rm_traits_one_user_object on rm_traits (tenant) where trait = 'User' and removed_at is null;
