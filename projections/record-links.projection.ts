import type { StoredEvent } from '../aggregates/kernel/events.js';
import { recordLinkEventTypes, recordLinkOfStream, type RecordLinkEvent } from '../aggregates/relation/record-link.events.js';
import type { Projection } from './projection.js';
import { connectedWithAppend } from './record-links.connected-with-append.js';
import { advance } from './schema-rows.js';

function keyOf(stored: StoredEvent) {
  const link = recordLinkOfStream(stored.streamId);
  return { tenant: stored.tenant, relation_uuid: link.relationUuid, from_record: link.fromRecordUuid, to_record: link.toRecordUuid };
}

/**
 * `rm_record_links`: one row per connection stream. Connecting fills one_per_from / one_per_to
 * from the relation's cardinality; the partial unique indexes on them make a connection that
 * breaks the cardinality fail here, in the append's transaction, which rolls the append back.
 * A connection of a purged relation is never written.
 */
export const recordLinksProjection: Projection = {
  name: 'record-links',
  tables: ['rm_record_links'],
  handles: recordLinkEventTypes,
  // A new connection commits with its append, in its statement (record-links.connected-with-append.ts).
  withAppend: [connectedWithAppend],
  async apply(stored, tx) {
    const event = stored as StoredEvent<RecordLinkEvent> & RecordLinkEvent;
    const at = stored.metadata.occurredAt;
    const key = keyOf(stored);
    switch (event.type) {
      case 'RecordsConnected': {
        const d = event.data;
        await tx.query(
          `insert into rm_record_links (tenant, relation_uuid, from_record, to_record, edge_properties, one_per_from, one_per_to, connected, created_at, updated_at, revision)
           select r.tenant, r.relation_uuid, $3, $4, $5::jsonb, r.cardinality in ('ONE_TO_ONE', 'MANY_TO_ONE'), r.cardinality in ('ONE_TO_ONE', 'ONE_TO_MANY'), true, $6, $6, $7
             from rm_relations r where r.tenant = $1 and r.relation_uuid = $2 and r.purged_at is null
           on conflict (tenant, relation_uuid, from_record, to_record) do update
             set connected = true, edge_properties = excluded.edge_properties, created_at = excluded.created_at, updated_at = excluded.updated_at, revision = excluded.revision
             where rm_record_links.revision < excluded.revision`,
          [stored.tenant, d.relationUuid, d.fromRecordUuid, d.toRecordUuid, JSON.stringify(d.edgeProperties), at, stored.revision],
        );
        return;
      }
      case 'RecordLinkUpdated':
        await advance(tx, stored, 'rm_record_links', key, { edge_properties: event.data.edgeProperties }, ['edge_properties']);
        return;
      case 'RecordsDisconnected':
        await advance(tx, stored, 'rm_record_links', key, { connected: false, edge_properties: {} }, ['edge_properties']);
        return;
    }
  },
};
