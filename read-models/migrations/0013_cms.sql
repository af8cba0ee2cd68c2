-- Webpages and the CMS (issue 16). Every table here is a read model projected inline from the
-- page-, cms-environments, page-translation-, cms-module- and web-menu- streams; a rebuild
-- truncates and replays them. Page history is `rm_page_revisions` (one row per edit batch, with
-- its ops) plus `rm_page_snapshots` (the whole document every 100 revisions and at every
-- restore), so any revision is a snapshot plus at most 99 batches of ops, never a fold of the
-- whole stream.

create table if not exists rm_pages (
  tenant text not null,
  page_uuid uuid not null,
  record_uuid uuid not null,
  object_uuid uuid not null,
  object_name text not null,
  environment text not null,
  locale text not null,
  template boolean not null,
  slug text not null,
  title text not null,
  document jsonb not null,
  doc_revision int not null,
  protection jsonb not null,
  published boolean not null,
  ever_published boolean not null,
  publish_at bigint,
  unpublish_at bigint,
  schedule_request text,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  created_by uuid,
  updated_by uuid,
  revision int not null,
  primary key (tenant, page_uuid)
);
create unique index if not exists rm_pages_slug_unique on rm_pages (tenant, environment, locale, slug) where not template;
create unique index if not exists rm_pages_record_unique on rm_pages (tenant, record_uuid, environment, locale) where not template;
create unique index if not exists rm_pages_template_unique on rm_pages (tenant, object_uuid, environment, locale) where template;
create index if not exists rm_pages_publish_due on rm_pages (publish_at) where publish_at is not null;
create index if not exists rm_pages_unpublish_due on rm_pages (unpublish_at) where unpublish_at is not null;

create table if not exists rm_page_revisions (
  tenant text not null,
  page_uuid uuid not null,
  revision int not null,
  stream_revision int not null,
  kind text not null,
  ops jsonb not null,
  restored_from int,
  at bigint not null,
  user_uuid uuid,
  request_id text not null,
  primary key (tenant, page_uuid, revision)
);
create index if not exists rm_page_revisions_at on rm_page_revisions (tenant, page_uuid, at);

create table if not exists rm_page_snapshots (
  tenant text not null,
  page_uuid uuid not null,
  revision int not null,
  document jsonb not null,
  primary key (tenant, page_uuid, revision)
);

-- The publication events of each page with their time, for `?asOf=` (what was live at T).
create table if not exists rm_page_publications (
  tenant text not null,
  page_uuid uuid not null,
  stream_revision int not null,
  at bigint not null,
  event jsonb not null,
  primary key (tenant, page_uuid, stream_revision)
);

create table if not exists rm_cms_environments (
  tenant text not null,
  key text not null,
  env_uuid uuid not null,
  label text not null,
  routing text not null,
  slug_prefix text not null,
  host_label text not null,
  html_lang text not null,
  requires_auth boolean not null,
  is_default boolean not null,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  created_by uuid,
  updated_by uuid,
  revision int not null,
  primary key (tenant, key)
);

-- Both directions of each link, so a page's translations are one index scan.
create table if not exists rm_page_translations (
  tenant text not null,
  page_uuid uuid not null,
  other_uuid uuid not null,
  primary key (tenant, page_uuid, other_uuid)
);

create table if not exists rm_cms_modules (
  tenant text not null,
  module_uuid uuid not null,
  owner_uuid uuid,
  name text not null,
  label text not null,
  description text not null,
  fields jsonb not null,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, module_uuid)
);
create unique index if not exists rm_cms_modules_name_unique on rm_cms_modules (tenant, coalesce(owner_uuid::text, ''), name) where deleted_at is null;

create table if not exists rm_web_menus (
  tenant text not null,
  menu_uuid uuid not null,
  name text not null,
  label text not null,
  environment text not null,
  items jsonb not null,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, menu_uuid)
);
