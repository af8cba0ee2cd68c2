import type { StoredEvent } from '../aggregates/kernel/events.js';
import { environmentEventTypes, type EnvironmentEvent, type EnvironmentSettings } from '../aggregates/environment/environment.events.js';
import type { Projection } from './projection.js';

const columns: Record<Exclude<keyof EnvironmentSettings, 'envUuid'>, string> = {
  label: 'label',
  routing: 'routing',
  slugPrefix: 'slug_prefix',
  hostLabel: 'host_label',
  htmlLang: 'html_lang',
  requiresAuth: 'requires_auth',
  default: 'is_default',
};

/**
 * `rm_cms_environments`: one row per live environment. The company's one stream orders every
 * change; a row keeps the stream revision that last changed it and ignores older events.
 */
export const cmsEnvironmentsProjection: Projection = {
  name: 'environments',
  tables: ['rm_cms_environments'],
  handles: environmentEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<EnvironmentEvent> & EnvironmentEvent;
    const { tenant, revision } = stored;
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'EnvironmentCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_cms_environments (tenant, key, env_uuid, label, routing, slug_prefix, host_label, html_lang, requires_auth, is_default, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, (select count(*) from rm_cms_environments where tenant = $1), $11, $11, $12, $12, $13) on conflict do nothing`,
          [tenant, d.key, d.envUuid, d.label, d.routing, d.slugPrefix, d.hostLabel, d.htmlLang, d.requiresAuth, d.default, at, by, revision],
        );
        return;
      }
      case 'EnvironmentUpdated': {
        const params: unknown[] = [tenant, event.data.key, revision, at, by];
        const sets = Object.entries(event.data.changes).map(([k, v]) => {
          params.push(v);
          return `, ${columns[k as keyof typeof columns]} = $${params.length}`;
        });
        await tx.query(`update rm_cms_environments set revision = $3, updated_at = $4, updated_by = $5${sets.join('')} where tenant = $1 and key = $2 and revision < $3`, params);
        return;
      }
      case 'EnvironmentDeleted':
        await tx.query('delete from rm_cms_environments where tenant = $1 and key = $2 and revision < $3', [tenant, event.data.key, revision]);
        return;
    }
  },
};
