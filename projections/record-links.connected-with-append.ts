import type { StoredEvent } from '../aggregates/kernel/events.js';
import type { RecordLinkEvent } from '../aggregates/relation/record-link.events.js';
import type { FusedWrite } from './projection.js';

/** The input columns of a connection written with its append (`jsonb_to_recordset`). */
const inputColumns = 'tenant text, stream_id text, relation_uuid uuid, from_record uuid, to_record uuid, edge_properties jsonb, at bigint, revision int';

/**
 * New connections (a link stream's first event) as CTEs `lk_in`, `lk` of the append statement
 * (`Projection.withAppend`, docs/adr/0003): the same row `apply` writes, only for the streams the
 * append made (`heads`). A connection that breaks the relation's cardinality violates a partial
 * unique index, which fails the statement, and the store appends the usual way (the same error).
 * A purged relation's connection is never written, as in `apply`.
 */
export const connectedWithAppend: FusedWrite = {
  name: 'append_with_record_links',
  accepts: (e) => e.type === 'RecordsConnected' && e.revision === 0,
  sql: (param) => ({
    ctes: `lk_in as (
  select x.* from jsonb_to_recordset(${param}::jsonb) as x(${inputColumns})
   where exists (select 1 from heads h where h.tenant = x.tenant and h.stream_id = x.stream_id)
),
lk as (
  insert into rm_record_links (tenant, relation_uuid, from_record, to_record, edge_properties, one_per_from, one_per_to, connected, created_at, updated_at, revision)
  select r.tenant, r.relation_uuid, x.from_record, x.to_record, x.edge_properties, r.cardinality in ('ONE_TO_ONE', 'MANY_TO_ONE'), r.cardinality in ('ONE_TO_ONE', 'ONE_TO_MANY'),
         true, x.at, x.at, x.revision
    from lk_in x join rm_relations r on r.tenant = x.tenant and r.relation_uuid = x.relation_uuid and r.purged_at is null
  on conflict (tenant, relation_uuid, from_record, to_record) do update
    set connected = true, edge_properties = excluded.edge_properties, created_at = excluded.created_at, updated_at = excluded.updated_at, revision = excluded.revision
    where rm_record_links.revision < excluded.revision
  returning 1
)`,
    check: '(select count(*) from lk)',
  }),
  input: (events) =>
    JSON.stringify(
      events.map((e) => {
        const d = (e as unknown as StoredEvent<RecordLinkEvent> & Extract<RecordLinkEvent, { type: 'RecordsConnected' }>).data;
        return {
          tenant: e.tenant, stream_id: e.streamId, relation_uuid: d.relationUuid, from_record: d.fromRecordUuid, to_record: d.toRecordUuid,
          edge_properties: d.edgeProperties, at: e.metadata.occurredAt, revision: e.revision,
        };
      }),
    ),
};
