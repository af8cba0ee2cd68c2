import type { StoredEvent } from '../aggregates/kernel/events.js';
import { syncEventTypes, syncUuidOfStream, type SyncEvent, type SyncSettings } from '../aggregates/sync/sync.events.js';
import type { Projection } from './projection.js';

const columns: Record<keyof SyncSettings, { column: string; json?: boolean }> = {
  name: { column: 'name' },
  label: { column: 'label' },
  sourceObjectUuid: { column: 'source_object_uuid' },
  sourceObjectName: { column: 'source_object_name' },
  targetObjectUuid: { column: 'target_object_uuid' },
  targetObjectName: { column: 'target_object_name' },
  relationUuid: { column: 'relation_uuid' },
  mappings: { column: 'mappings', json: true },
  enabled: { column: 'enabled' },
};

/** `rm_syncs`: one row per sync, guarded by the stream revision (idempotent). */
export const syncsProjection: Projection = {
  name: 'syncs',
  tables: ['rm_syncs'],
  handles: syncEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<SyncEvent> & SyncEvent;
    const { tenant, revision } = stored;
    const uuid = syncUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'SyncCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_syncs (tenant, sync_uuid, name, label, source_object_uuid, source_object_name, target_object_uuid, target_object_name,
             relation_uuid, mappings, enabled, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, (select count(*) from rm_syncs where tenant = $1), $12, $12, $13, $13, $14)
           on conflict do nothing`,
          [tenant, uuid, d.name, d.label, d.sourceObjectUuid, d.sourceObjectName, d.targetObjectUuid, d.targetObjectName, d.relationUuid, JSON.stringify(d.mappings), d.enabled, at, by, revision],
        );
        return;
      }
      case 'SyncUpdated': {
        const sets: string[] = [];
        const params: unknown[] = [tenant, uuid, revision, at, by];
        for (const [key, value] of Object.entries(event.data.changes) as [keyof SyncSettings, unknown][]) {
          const c = columns[key];
          params.push(c.json ? JSON.stringify(value) : value);
          sets.push(`${c.column} = $${params.length}${c.json ? '::jsonb' : ''}`);
        }
        await tx.query(
          `update rm_syncs set revision = $3, updated_at = $4, updated_by = $5${sets.map((s) => `, ${s}`).join('')} where tenant = $1 and sync_uuid = $2 and revision < $3`,
          params,
        );
        return;
      }
      case 'SyncDeleted':
        await tx.query(`update rm_syncs set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and sync_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by]);
        return;
      case 'SyncRestored':
        await tx.query(
          `update rm_syncs set revision = $3, updated_at = $4, updated_by = $5, deleted_at = null, deleted_by = null where tenant = $1 and sync_uuid = $2 and revision < $3`,
          [tenant, uuid, revision, at, by],
        );
        return;
    }
  },
};
