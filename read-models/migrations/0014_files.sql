-- Files (issue 17). `rm_files` (one row per file, purged ones kept with purged_at for the audit
-- trail) and `rm_file_attachments` (which record properties hold a file) are projected inline from
-- the file- streams; a rebuild truncates them. The bytes live in object storage, not here.

create table if not exists rm_files (
  tenant text not null,
  file_uuid uuid not null,
  storage_key text not null,
  name text not null,
  content_type text not null,
  size bigint not null,
  sha256 text not null,
  visibility text not null,
  page_uuid uuid,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  purged_at bigint,
  created_by text,
  updated_by text,
  deleted_by text,
  revision int not null,
  primary key (tenant, file_uuid)
);

create table if not exists rm_file_attachments (
  tenant text not null,
  file_uuid uuid not null,
  record_uuid uuid not null,
  property text not null,
  attached_at bigint not null,
  primary key (tenant, file_uuid, record_uuid, property)
);

create index if not exists rm_file_attachments_record on rm_file_attachments (tenant, record_uuid, attached_at);
