-- Most events' correlationId is their requestId (a request that names no other correlation): the
-- requestId index finds those. This index holds only the events whose correlation differs (what
-- reactors did because of a request, or a client's own correlation), so an append writes one
-- index entry fewer. The event log asks both (read-models/event-log.queries.ts).
drop index if exists events_correlation_id;
create index if not exists events_correlation_other on events ((metadata ->> 'correlationId'), tenant)
  where (metadata ->> 'correlationId') is distinct from (metadata ->> 'requestId');
