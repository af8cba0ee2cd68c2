/**
 * The append-only log. `transaction_id` (xid8) with the snapshot's xmin lets readers take events
 * in an order no late commit can break: a reader only reads below the oldest transaction still
 * open, so nothing can appear behind its checkpoint afterwards. Databases made before migration
 * 0010 had a key on position and a separate (transaction_id, position) index; 0010 folds them.
 */
export const eventStoreSchema = /* sql */ `
create table if not exists events (
  position bigint generated always as identity,
  transaction_id xid8 not null default pg_current_xact_id(),
  tenant text not null,
  stream_id text not null,
  revision bigint not null,
  type text not null,
  version int not null,
  data jsonb not null,
  metadata jsonb not null,
  occurred_at bigint not null,
  -- The global order is the key: readers page through it, and no other index is kept for it
  -- (position alone is unique by its identity; an index on it alone would only cost appends).
  primary key (transaction_id, position),
  unique (tenant, stream_id, revision)
);

create table if not exists streams (
  tenant text not null,
  stream_id text not null,
  revision bigint not null,
  primary key (tenant, stream_id)
);

drop function if exists append_events(text, text, text, bigint, jsonb);
`;
