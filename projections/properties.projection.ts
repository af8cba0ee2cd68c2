import type { StoredEvent } from '../aggregates/kernel/events.js';
import { propertyEventTypes, propertyUuidOfStream, type PropertyEvent } from '../aggregates/property/property.events.js';
import type { Projection } from './projection.js';
import { advance } from './schema-rows.js';

/** `rm_properties`: one row per property stream; a deleted property keeps its row with deleted_at set. */
export const propertiesProjection: Projection = {
  name: 'properties',
  tables: ['rm_properties'],
  handles: propertyEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<PropertyEvent> & PropertyEvent;
    const { tenant } = stored;
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    const key = { tenant, property_uuid: propertyUuidOfStream(stored.streamId) };
    switch (event.type) {
      case 'PropertyCreated': {
        const { propertyUuid, objectUuid, definition: d } = event.data;
        await tx.query(
          `insert into rm_properties (tenant, property_uuid, object_uuid, name, label, type, format, options, required, is_unique, min_length, max_length,
                                      min_value, max_value, pattern, description, icon, grp, relation_uuid, created_at, updated_at, revision, created_by, updated_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20, $21, $22, $22)
           on conflict (tenant, property_uuid) do nothing`,
          [
            tenant, propertyUuid, objectUuid, d.name, d.label, d.type, d.format, d.options === null ? null : JSON.stringify(d.options), d.required, d.unique,
            d.minLength, d.maxLength, d.min, d.max, d.pattern, d.description, d.icon, d.group, d.relationUuid, at, stored.revision, by,
          ],
        );
        return;
      }
      case 'PropertyUpdated': {
        const d = event.data;
        await advance(tx, stored, 'rm_properties', key, { label: d.label, description: d.description, icon: d.icon, grp: d.group, options: d.options, updated_by: by }, ['options']);
        return;
      }
      case 'PropertyDeleted':
        await advance(tx, stored, 'rm_properties', key, { deleted_at: at, deleted_by: by, updated_by: by });
        return;
      case 'PropertyRestored':
        await advance(tx, stored, 'rm_properties', key, { deleted_at: null, deleted_by: null, updated_by: by });
        return;
    }
  },
};
