import type { StoredEvent } from '../aggregates/kernel/events.js';
import { objectEventTypes, objectUuidOfStream, type ObjectEvent } from '../aggregates/object/object.events.js';
import type { Projection } from './projection.js';
import { advance } from './schema-rows.js';

/** `rm_objects`: one row per object stream, guarded by the stream revision. */
export const objectsProjection: Projection = {
  name: 'objects',
  tables: ['rm_objects'],
  handles: objectEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<ObjectEvent> & ObjectEvent;
    const { tenant } = stored;
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    const key = { tenant, object_uuid: objectUuidOfStream(stored.streamId) };
    switch (event.type) {
      case 'ObjectCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_objects (tenant, object_uuid, name, label, plural, description, icon, grp, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $10, $11) on conflict (tenant, object_uuid) do nothing`,
          [tenant, d.objectUuid, d.name, d.label, d.plural, d.description, d.icon, d.group, at, by, stored.revision],
        );
        return;
      }
      case 'ObjectUpdated': {
        const d = event.data;
        await advance(tx, stored, 'rm_objects', key, { label: d.label, plural: d.plural, description: d.description, icon: d.icon, grp: d.group, updated_by: by });
        return;
      }
      case 'ObjectDeleted':
        await advance(tx, stored, 'rm_objects', key, { deleted_at: at, deleted_by: by, updated_by: by });
        return;
      case 'ObjectRestored':
        await advance(tx, stored, 'rm_objects', key, { deleted_at: null, deleted_by: null, updated_by: by });
        return;
    }
  },
};
