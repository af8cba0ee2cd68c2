-- Webhooks and syncs (issue 6). `rm_webhooks` and `rm_syncs` are read models projected inline
-- from the webhook- and sync- streams (a rebuild truncates them). The other tables are not
-- projections and a rebuild leaves them alone: the secrets (kept out of the event log, which
-- admins read), and the delivery outbox written by the webhook reactor in the same transaction
-- as its checkpoint.

create table if not exists rm_webhooks (
  tenant text not null,
  webhook_uuid uuid not null,
  app_uuid uuid,
  name text not null,
  label text not null,
  url text not null,
  topic text not null,
  webhook_format text not null,
  filter jsonb,
  include_relations jsonb not null,
  relation_filters jsonb not null,
  relation_limit int not null,
  retry_enabled boolean not null,
  max_retries int not null,
  retry_backoff_ms int not null,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, webhook_uuid)
);
create index if not exists rm_webhooks_live on rm_webhooks (tenant, created_at) where deleted_at is null;

create table if not exists webhook_secrets (
  tenant text not null,
  webhook_uuid uuid not null,
  secret text not null,
  updated_at bigint not null,
  primary key (tenant, webhook_uuid)
);

-- The outbox: one row per message to send. `message_id` is the webhook-id header, the same on
-- every attempt (and on a redelivery). A live delivery is unique per (webhook, event), so a
-- reactor that re-reads an event after a crash enqueues nothing twice.
create table if not exists webhook_deliveries (
  delivery_uuid uuid primary key,
  seq bigint generated always as identity,
  tenant text not null,
  webhook_uuid uuid not null,
  message_id text not null,
  source text not null,
  order_key text not null,
  topic text not null,
  event_type text,
  event_checkpoint text,
  event_position bigint,
  stream_id text,
  event_occurred_at bigint,
  payload text not null,
  status text not null,
  attempts int not null default 0,
  next_attempt_at bigint not null,
  locked_until bigint,
  last_attempt_at bigint,
  last_status_code int,
  last_latency_ms int,
  last_error text,
  created_at bigint not null,
  completed_at bigint,
  redelivery_of uuid,
  replay_uuid uuid
);
create unique index if not exists webhook_deliveries_live on webhook_deliveries (tenant, webhook_uuid, event_checkpoint) where source = 'live';
create index if not exists webhook_deliveries_due on webhook_deliveries (next_attempt_at, seq) where status = 'pending';
create index if not exists webhook_deliveries_order on webhook_deliveries (tenant, webhook_uuid, order_key, seq) where status = 'pending';
create index if not exists webhook_deliveries_log on webhook_deliveries (tenant, webhook_uuid, seq);

create table if not exists webhook_delivery_attempts (
  delivery_uuid uuid not null,
  attempt int not null,
  started_at bigint not null,
  status_code int,
  latency_ms int not null,
  outcome text not null,
  error text,
  primary key (delivery_uuid, attempt)
);

-- Syncs: property values of a source object copied to related records of a target object.
create table if not exists rm_syncs (
  tenant text not null,
  sync_uuid uuid not null,
  name text not null,
  label text not null,
  source_object_uuid uuid not null,
  source_object_name text not null,
  target_object_uuid uuid not null,
  target_object_name text not null,
  relation_uuid uuid not null,
  mappings jsonb not null,
  enabled boolean not null,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, sync_uuid)
);
create index if not exists rm_syncs_source on rm_syncs (tenant, source_object_uuid) where deleted_at is null;
