-- The events table's key becomes its global order (transaction_id, position): readers of the log
-- page through that order, and the key on position alone served no query. One index fewer per
-- appended event. Databases made since this migration have that key from the start
-- (src/event-store/postgres.schema.ts); older ones are changed here.
do $$
begin
  if exists (select 1 from pg_indexes where schemaname = current_schema() and indexname = 'events_global_order') then
    alter table events drop constraint events_pkey;
    alter table events add constraint events_pkey primary key (transaction_id, position);
    drop index events_global_order;
  end if;
end $$;
