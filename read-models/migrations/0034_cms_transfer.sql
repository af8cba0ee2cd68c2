-- CMS v2 transfer (issue 37, spec 1.18 and 4.10). Read models projected inline from each
-- company's `cms-transfer` stream; a rebuild truncates and replays them.
-- `rm_cms_transfers`: the company's state now (one row); `rm_cms_transfer_history`: every
-- transition, in order (the stream revision), for the history route.

create table if not exists rm_cms_transfers (
  tenant text primary key,
  state text not null,
  transfer_uuid uuid not null,
  project jsonb not null,
  live jsonb,
  v1 jsonb,
  created_at bigint not null,
  updated_at bigint not null,
  created_by uuid,
  updated_by uuid,
  revision int not null
);

create table if not exists rm_cms_transfer_history (
  tenant text not null,
  revision int not null,
  transfer_uuid uuid not null,
  type text not null,
  from_state text not null,
  to_state text not null,
  data jsonb not null,
  at bigint not null,
  by uuid,
  request_id text not null,
  primary key (tenant, revision)
);
