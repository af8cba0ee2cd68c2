import type { StoredEvent } from '../aggregates/kernel/events.js';
import { moduleEventTypes, moduleUuidOfStream, type ModuleEvent } from '../aggregates/module/module.events.js';
import type { Projection } from './projection.js';

const columns = { name: 'name', label: 'label', description: 'description', fields: 'fields' } as const;

/** `rm_cms_modules`: company and personal module definitions, guarded by the stream revision. */
export const cmsModulesProjection: Projection = {
  name: 'cms-modules',
  tables: ['rm_cms_modules'],
  handles: moduleEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<ModuleEvent> & ModuleEvent;
    const { tenant, revision } = stored;
    const uuid = moduleUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'ModuleCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_cms_modules (tenant, module_uuid, owner_uuid, name, label, description, fields, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7::jsonb, (select count(*) from rm_cms_modules where tenant = $1), $8, $8, $9, $9, $10) on conflict (tenant, module_uuid) do nothing`,
          [tenant, uuid, d.ownerUuid, d.name, d.label, d.description, JSON.stringify(d.fields), at, by, revision],
        );
        return;
      }
      case 'ModuleUpdated': {
        const params: unknown[] = [tenant, uuid, revision, at, by];
        const sets = Object.entries(event.data.changes).map(([k, v]) => {
          const json = k === 'fields';
          params.push(json ? JSON.stringify(v) : v);
          return `, ${columns[k as keyof typeof columns]} = $${params.length}${json ? '::jsonb' : ''}`;
        });
        await tx.query(`update rm_cms_modules set revision = $3, updated_at = $4, updated_by = $5${sets.join('')} where tenant = $1 and module_uuid = $2 and revision < $3`, params);
        return;
      }
      case 'ModuleDeleted':
        await tx.query('update rm_cms_modules set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and module_uuid = $2 and revision < $3', [tenant, uuid, revision, at, by]);
        return;
    }
  },
};
