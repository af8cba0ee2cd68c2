import type { StoredEvent } from '../aggregates/kernel/events.js';
import { webMenuEventTypes, webMenuUuidOfStream, type WebMenuEvent } from '../aggregates/web-menu/web-menu.events.js';
import type { Projection } from './projection.js';

const columns = { name: 'name', label: 'label', environment: 'environment', items: 'items' } as const;

/** `rm_web_menus`: the web menus of each company, deleted ones kept with deleted_at; guarded by the stream revision. */
export const webMenusProjection: Projection = {
  name: 'web-menus',
  tables: ['rm_web_menus'],
  handles: webMenuEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<WebMenuEvent> & WebMenuEvent;
    const { tenant, revision } = stored;
    const uuid = webMenuUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'WebMenuCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_web_menus (tenant, menu_uuid, name, label, environment, items, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6::jsonb, (select count(*) from rm_web_menus where tenant = $1), $7, $7, $8, $8, $9) on conflict (tenant, menu_uuid) do nothing`,
          [tenant, uuid, d.name, d.label, d.environment, JSON.stringify(d.items), at, by, revision],
        );
        return;
      }
      case 'WebMenuUpdated': {
        const params: unknown[] = [tenant, uuid, revision, at, by];
        const sets = Object.entries(event.data.changes).map(([k, v]) => {
          const json = k === 'items';
          params.push(json ? JSON.stringify(v) : v);
          return `, ${columns[k as keyof typeof columns]} = $${params.length}${json ? '::jsonb' : ''}`;
        });
        await tx.query(`update rm_web_menus set revision = $3, updated_at = $4, updated_by = $5${sets.join('')} where tenant = $1 and menu_uuid = $2 and revision < $3`, params);
        return;
      }
      case 'WebMenuDeleted':
        await tx.query('update rm_web_menus set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and menu_uuid = $2 and revision < $3', [tenant, uuid, revision, at, by]);
        return;
      case 'WebMenuRestored':
        await tx.query('update rm_web_menus set revision = $3, updated_at = $4, updated_by = $5, deleted_at = null, deleted_by = null where tenant = $1 and menu_uuid = $2 and revision < $3', [tenant, uuid, revision, at, by]);
        return;
    }
  },
};
