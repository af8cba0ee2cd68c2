-- Checkpoints of the async runners (projections on EventStoreDB, and reactors).
create table if not exists checkpoints (
  name text primary key,
  checkpoint text not null,
  updated_at bigint not null
);

-- Idempotency-Key: the first response to a POST, replayed for the same key and body.
create table if not exists idempotency_keys (
  scope text not null,
  key text not null,
  body_hash text not null,
  status int,
  response text,
  content_type text,
  created_at bigint not null,
  primary key (scope, key)
);
create index if not exists idempotency_keys_created on idempotency_keys (created_at);
