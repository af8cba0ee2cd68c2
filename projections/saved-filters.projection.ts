import type { StoredEvent } from '../aggregates/kernel/events.js';
import { savedFilterEventTypes, savedFilterUuidOfStream, type SavedFilterEvent } from '../aggregates/saved-filter/saved-filter.events.js';
import type { Projection } from './projection.js';

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

/** `rm_saved_filters`, guarded by the filter stream's revision. */
export const savedFiltersProjection: Projection = {
  name: 'saved-filters',
  tables: ['rm_saved_filters'],
  handles: savedFilterEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<SavedFilterEvent> & SavedFilterEvent;
    const uuid = savedFilterUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    switch (event.type) {
      case 'SavedFilterCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_saved_filters (tenant, filter_uuid, name, object_name, filters, groups, sort, created_by, updated_by, created_at, updated_at, revision)
           values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8, $8, $9, $9, $10) on conflict do nothing`,
          [stored.tenant, uuid, d.name, d.objectName, json(d.filters), json(d.groups), json(d.sort), stored.metadata.userUuid, at, stored.revision],
        );
        return;
      }
      case 'SavedFilterUpdated': {
        const d = event.data;
        await tx.query(
          `update rm_saved_filters set name = coalesce($3, name), object_name = coalesce($4, object_name), filters = coalesce($5::jsonb, filters),
                  groups = coalesce($6::jsonb, groups), sort = coalesce($7::jsonb, sort), updated_at = $8, revision = $9, updated_by = $10
            where tenant = $1 and filter_uuid = $2 and revision < $9`,
          [stored.tenant, uuid, d.name ?? null, d.objectName ?? null, json(d.filters), json(d.groups), json(d.sort), at, stored.revision, stored.metadata.userUuid],
        );
        return;
      }
      case 'SavedFilterDeleted':
      case 'SavedFilterRestored':
        await tx.query('update rm_saved_filters set deleted_at = $3, deleted_by = $6, updated_at = $4, updated_by = $7, revision = $5 where tenant = $1 and filter_uuid = $2 and revision < $5', [
          stored.tenant, uuid, event.type === 'SavedFilterDeleted' ? at : null, at, stored.revision, event.type === 'SavedFilterDeleted' ? stored.metadata.userUuid : null, stored.metadata.userUuid,
        ]);
        return;
    }
  },
};
