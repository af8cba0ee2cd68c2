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

-- One round trip per append: the revision check, the stream's new head and the events.
create or replace function append_events(
  p_tenant text, p_stream text, p_mode text, p_expected bigint, p_events jsonb
) returns table (revision bigint, "position" bigint, transaction_id text)
language plpgsql as $$
declare
  v_n int := jsonb_array_length(p_events);
  v_current bigint;
begin
  if p_mode = 'no_stream' then
    insert into streams as s values (p_tenant, p_stream, v_n - 1) on conflict do nothing;
    if not found then
      select s.revision into v_current from streams s where s.tenant = p_tenant and s.stream_id = p_stream;
      raise exception 'WRONG_EXPECTED_REVISION:%', v_current using errcode = 'P0409';
    end if;
    v_current := -1;
  elsif p_mode = 'exact' then
    update streams s set revision = s.revision + v_n
      where s.tenant = p_tenant and s.stream_id = p_stream and s.revision = p_expected;
    if not found then
      select s.revision into v_current from streams s where s.tenant = p_tenant and s.stream_id = p_stream;
      raise exception 'WRONG_EXPECTED_REVISION:%', coalesce(v_current, -1) using errcode = 'P0409';
    end if;
    v_current := p_expected;
  elsif p_mode = 'stream_exists' then
    update streams s set revision = s.revision + v_n
      where s.tenant = p_tenant and s.stream_id = p_stream
      returning s.revision - v_n into v_current;
    if not found then
      raise exception 'WRONG_EXPECTED_REVISION:-1' using errcode = 'P0409';
    end if;
  else
    insert into streams as s values (p_tenant, p_stream, v_n - 1)
      on conflict (tenant, stream_id) do update set revision = s.revision + v_n
      returning s.revision - v_n into v_current;
  end if;
  return query
    insert into events as e (tenant, stream_id, revision, type, version, data, metadata, occurred_at)
    select p_tenant, p_stream, v_current + x.i, x.ev->>'type', (x.ev->>'version')::int,
           x.ev->'data', x.ev->'metadata', (x.ev->'metadata'->>'occurredAt')::bigint
    from jsonb_array_elements(p_events) with ordinality as x(ev, i)
    order by x.i
    returning e.revision, e.position, e.transaction_id::text;
end $$;
`;
