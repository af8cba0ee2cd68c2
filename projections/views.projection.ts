import type { StoredEvent } from '../aggregates/kernel/events.js';
import { viewEventTypes, viewUuidOfStream, type ViewEvent, type ViewSettings } from '../aggregates/view/view.events.js';
import type { Projection } from './projection.js';

const columns: Record<keyof ViewSettings, { column: string; json?: boolean }> = {
  name: { column: 'name' },
  objectUuid: { column: 'object_uuid' },
  objectName: { column: 'object_name' },
  columns: { column: 'columns', json: true },
  filters: { column: 'filters', json: true },
  groups: { column: 'groups', json: true },
  sort: { column: 'sort', json: true },
  pageSize: { column: 'page_size' },
  groupBy: { column: 'group_by' },
  sharing: { column: 'sharing' },
  teamUuid: { column: 'team_uuid' },
};

/** `rm_views`: one row per view, guarded by the stream revision (idempotent). */
export const viewsProjection: Projection = {
  name: 'views',
  tables: ['rm_views'],
  handles: viewEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<ViewEvent> & ViewEvent;
    const { tenant, revision } = stored;
    const uuid = viewUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'ViewCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_views (tenant, view_uuid, object_uuid, object_name, name, columns, filters, groups, sort, page_size, group_by, sharing, team_uuid, owner_uuid,
             idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9::jsonb, $10, $11, $12, $13, $14,
             (select count(*) from rm_views where tenant = $1 and object_uuid = $3), $15, $15, $16, $16, $17)
           on conflict do nothing`,
          [tenant, uuid, d.objectUuid, d.objectName, d.name, JSON.stringify(d.columns), JSON.stringify(d.filters), JSON.stringify(d.groups), JSON.stringify(d.sort), d.pageSize, d.groupBy, d.sharing, d.teamUuid, d.ownerUuid, at, by, revision],
        );
        return;
      }
      case 'ViewUpdated': {
        const sets: string[] = [];
        const params: unknown[] = [tenant, uuid, revision, at, by];
        for (const [key, value] of Object.entries(event.data.changes) as [keyof ViewSettings, unknown][]) {
          const c = columns[key];
          params.push(c.json ? JSON.stringify(value) : value);
          sets.push(`${c.column} = $${params.length}${c.json ? '::jsonb' : ''}`);
        }
        await tx.query(
          `update rm_views set revision = $3, updated_at = $4, updated_by = $5${sets.map((s) => `, ${s}`).join('')} where tenant = $1 and view_uuid = $2 and revision < $3`,
          params,
        );
        return;
      }
      case 'ViewDeleted':
        await tx.query(`update rm_views set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and view_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by]);
        return;
      case 'ViewRestored':
        await tx.query(
          `update rm_views set revision = $3, updated_at = $4, updated_by = $5, deleted_at = null, deleted_by = null where tenant = $1 and view_uuid = $2 and revision < $3`,
          [tenant, uuid, revision, at, by],
        );
        return;
    }
  },
};
