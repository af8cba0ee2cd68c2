import type { StoredEvent } from '../aggregates/kernel/events.js';
import { webhookEventTypes, webhookUuidOfStream, type WebhookEvent } from '../aggregates/webhook/webhook.events.js';
import type { WebhookSettings } from '../aggregates/webhook/webhook.schemas.js';
import type { Projection } from './projection.js';

const columns: Record<keyof WebhookSettings, { column: string; json?: boolean }> = {
  name: { column: 'name' },
  label: { column: 'label' },
  url: { column: 'url' },
  topic: { column: 'topic' },
  webhookFormat: { column: 'webhook_format' },
  filter: { column: 'filter', json: true },
  includeRelations: { column: 'include_relations', json: true },
  relationFilters: { column: 'relation_filters', json: true },
  relationLimit: { column: 'relation_limit' },
  retryEnabled: { column: 'retry_enabled' },
  maxRetries: { column: 'max_retries' },
  retryBackoffMs: { column: 'retry_backoff_ms' },
};

/** `rm_webhooks`: one row per webhook, guarded by the stream revision (idempotent). */
export const webhooksProjection: Projection = {
  name: 'webhooks',
  tables: ['rm_webhooks'],
  handles: webhookEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<WebhookEvent> & WebhookEvent;
    const { tenant, revision } = stored;
    const uuid = webhookUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'WebhookCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_webhooks (tenant, webhook_uuid, app_uuid, name, label, url, topic, webhook_format, filter, include_relations,
             relation_filters, relation_limit, retry_enabled, max_retries, retry_backoff_ms, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11::jsonb, $12, $13, $14, $15,
             (select count(*) from rm_webhooks where tenant = $1), $16, $16, $17, $17, $18)
           on conflict do nothing`,
          [tenant, uuid, d.appUuid, d.name, d.label, d.url, d.topic, d.webhookFormat, d.filter === null ? null : JSON.stringify(d.filter),
            JSON.stringify(d.includeRelations), JSON.stringify(d.relationFilters), d.relationLimit, d.retryEnabled, d.maxRetries, d.retryBackoffMs, at, by, revision],
        );
        return;
      }
      case 'WebhookUpdated': {
        const sets: string[] = [];
        const params: unknown[] = [tenant, uuid, revision, at, by];
        for (const [key, value] of Object.entries(event.data.changes) as [keyof WebhookSettings, unknown][]) {
          const c = columns[key];
          params.push(c.json ? (value === null ? null : JSON.stringify(value)) : value);
          sets.push(`${c.column} = $${params.length}${c.json ? '::jsonb' : ''}`);
        }
        await tx.query(
          `update rm_webhooks set revision = $3, updated_at = $4, updated_by = $5${sets.map((s) => `, ${s}`).join('')}
           where tenant = $1 and webhook_uuid = $2 and revision < $3`,
          params,
        );
        return;
      }
      case 'WebhookDeleted':
        await tx.query(
          `update rm_webhooks set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and webhook_uuid = $2 and revision < $3`,
          [tenant, uuid, revision, at, by],
        );
        return;
    }
  },
};
