import type { StoredEvent } from '../aggregates/kernel/events.js';
import { relationEventTypes, relationUuidOfStream, type RelationEvent } from '../aggregates/relation/relation.events.js';
import type { Projection } from './projection.js';
import { advance } from './schema-rows.js';

/**
 * `rm_relations`: one row per relation stream. A purge keeps a tombstone row (purged_at) so an
 * old RelationCreated delivered again cannot bring the relation back, and removes its connections.
 */
export const relationsProjection: Projection = {
  name: 'relations',
  tables: ['rm_relations'],
  handles: relationEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<RelationEvent> & RelationEvent;
    const { tenant } = stored;
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    const relationUuid = relationUuidOfStream(stored.streamId);
    const key = { tenant, relation_uuid: relationUuid };
    switch (event.type) {
      case 'RelationCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_relations (tenant, relation_uuid, name, label, description, from_object_uuid, to_object_uuid, cardinality, direction, from_name, to_name,
                                     edge_properties, idx, created_at, updated_at, revision, created_by, updated_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $14, $15, $16, $16) on conflict (tenant, relation_uuid) do nothing`,
          [tenant, d.relationUuid, d.name, d.label, d.description, d.fromObjectUuid, d.toObjectUuid, d.cardinality, d.direction, d.fromName, d.toName, JSON.stringify(d.edgeProperties), d.index, at, stored.revision, by],
        );
        return;
      }
      case 'RelationUpdated': {
        const d = event.data;
        await advance(tx, stored, 'rm_relations', key, { label: d.label, description: d.description, direction: d.direction, from_name: d.fromName, to_name: d.toName, edge_properties: d.edgeProperties, updated_by: by }, ['edge_properties']);
        return;
      }
      case 'RelationIndexChanged':
        await advance(tx, stored, 'rm_relations', key, { idx: event.data.index, updated_by: by });
        return;
      case 'RelationDeleted':
        await advance(tx, stored, 'rm_relations', key, { deleted_at: at, deleted_by: by, updated_by: by });
        return;
      case 'RelationRestored':
        await advance(tx, stored, 'rm_relations', key, { deleted_at: null, deleted_by: null, updated_by: by });
        return;
      case 'RelationPurged':
        if (await advance(tx, stored, 'rm_relations', key, { purged_at: at })) {
          await tx.query('delete from rm_record_links where tenant = $1 and relation_uuid = $2', [tenant, relationUuid]);
        }
        return;
    }
  },
};
