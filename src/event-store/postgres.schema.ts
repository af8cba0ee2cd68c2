/**
 * The append-only log. `transaction_id` (xid8) with the snapshot's xmin lets readers take events
 * in an order no late commit can break: a reader only reads below the oldest transaction still
 * open, so nothing can appear behind its checkpoint afterwards.
 */
export const eventStoreSchema = /* sql */ `
create table if not exists events (
  position bigint generated always as identity primary key,
  transaction_id xid8 not null default pg_current_xact_id(),
  tenant text not null,
  stream_id text not null,
  revision bigint not null,
  type text not null,
  version int not null,
  data jsonb not null,
  metadata jsonb not null,
  occurred_at bigint not null,
  unique (tenant, stream_id, revision)
);
create index if not exists events_global_order on events (transaction_id, position);

create table if not exists streams (
  tenant text not null,
  stream_id text not null,
  revision bigint not null,
  primary key (tenant, stream_id)
);

drop function if exists append_events(text, text, text, bigint, jsonb);
`;
