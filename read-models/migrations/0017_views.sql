-- Views (issue 21): a saved way to look at one object's records. `rm_views` is a read model
-- projected inline from the view- streams (a rebuild truncates it).
create table if not exists rm_views (
  tenant text not null,
  view_uuid uuid not null,
  object_uuid uuid not null,
  object_name text not null,
  name text not null,
  columns jsonb not null,
  filters jsonb not null,
  groups jsonb not null,
  sort jsonb not null,
  page_size int not null,
  group_by text,
  sharing text not null,
  team_uuid uuid,
  owner_uuid uuid,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, view_uuid)
);
create index if not exists rm_views_object on rm_views (tenant, object_uuid, created_at);
