-- Developer sandboxes (issue 36, docs/sandboxes.md): a sandbox is a tenant of its own (its uuid)
-- whose log starts as a copy of the owning company's. The row lives in the company's tenant.
create table if not exists rm_sandboxes (
  tenant text not null,
  sandbox_uuid uuid not null,
  name text not null,
  status text not null,
  as_of_position bigint,
  as_of_time bigint,
  up_to_position bigint not null,
  total int not null,
  copied int not null default 0,
  last_position bigint,
  failure text,
  reactors_enabled boolean not null default false,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, sandbox_uuid)
);
-- The header names a sandbox alone; its tenant is then checked against the caller's company.
create unique index if not exists rm_sandboxes_uuid on rm_sandboxes (sandbox_uuid);

-- A partner copy's uuid mapping (spec 1.16): each source uuid and the copy's new one.
create table if not exists rm_company_copy_uuids (
  tenant text not null,
  source_uuid uuid not null,
  copy_uuid uuid not null,
  kind text not null,
  primary key (tenant, source_uuid)
);

-- The clone's work list: the source events a clone copies, in the log's order, numbered from 1.
-- Machinery, not a read model (a rebuild leaves it alone); emptied when the clone ends.
create table if not exists sandbox_clone_queue (
  clone_uuid uuid not null,
  seq bigint not null,
  transaction_id xid8 not null,
  position bigint not null,
  primary key (clone_uuid, seq)
);

-- A partner copy's data (spec 1.16), in the copy's tenant: its source, bound and progress.
create table if not exists rm_company_copies (
  tenant text not null primary key,
  source_company_uuid uuid not null,
  status text not null,
  as_of_position bigint,
  as_of_time bigint,
  up_to_position bigint not null,
  total int not null,
  copied int not null default 0,
  failure text,
  created_at bigint not null,
  updated_at bigint not null,
  created_by uuid,
  revision int not null
);
