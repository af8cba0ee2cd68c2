import type { StoredEvent } from '../aggregates/kernel/events.js';
import { feedEventTypes, feedUuidOfStream, type FeedEvent, type FeedSettings } from '../aggregates/feed/feed.events.js';
import type { Projection } from './projection.js';

const columns: Record<keyof FeedSettings, { column: string; json?: boolean }> = {
  name: { column: 'name' },
  title: { column: 'title' },
  description: { column: 'description' },
  homeUrl: { column: 'home_url' },
  objectUuid: { column: 'object_uuid' },
  objectName: { column: 'object_name' },
  filters: { column: 'filters', json: true },
  sort: { column: 'sort', json: true },
  fields: { column: 'fields', json: true },
  format: { column: 'format' },
  enabled: { column: 'enabled' },
};

/** `rm_feeds`: one row per feed, guarded by the stream revision (idempotent). */
export const feedsProjection: Projection = {
  name: 'feeds',
  tables: ['rm_feeds'],
  handles: feedEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<FeedEvent> & FeedEvent;
    const { tenant, revision } = stored;
    const uuid = feedUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'FeedCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_feeds (tenant, feed_uuid, name, title, description, home_url, object_uuid, object_name, filters, sort, fields, format, enabled, token_hash,
             idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11::jsonb, $12, $13, $14, (select count(*) from rm_feeds where tenant = $1), $15, $15, $16, $16, $17)
           on conflict do nothing`,
          [tenant, uuid, d.name, d.title, d.description, d.homeUrl, d.objectUuid, d.objectName, JSON.stringify(d.filters), JSON.stringify(d.sort), JSON.stringify(d.fields), d.format, d.enabled, d.tokenHash, at, by, revision],
        );
        return;
      }
      case 'FeedUpdated': {
        const sets: string[] = [];
        const params: unknown[] = [tenant, uuid, revision, at, by];
        for (const [key, value] of Object.entries(event.data.changes) as [keyof FeedSettings, unknown][]) {
          const c = columns[key];
          params.push(c.json ? JSON.stringify(value) : value);
          sets.push(`${c.column} = $${params.length}${c.json ? '::jsonb' : ''}`);
        }
        await tx.query(
          `update rm_feeds set revision = $3, updated_at = $4, updated_by = $5${sets.map((s) => `, ${s}`).join('')} where tenant = $1 and feed_uuid = $2 and revision < $3`,
          params,
        );
        return;
      }
      case 'FeedTokenRotated':
        await tx.query(`update rm_feeds set revision = $3, updated_at = $4, updated_by = $5, token_hash = $6 where tenant = $1 and feed_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by, event.data.tokenHash]);
        return;
      case 'FeedDeleted':
        await tx.query(`update rm_feeds set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and feed_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by]);
        return;
      case 'FeedRestored':
        await tx.query(
          `update rm_feeds set revision = $3, updated_at = $4, updated_by = $5, deleted_at = null, deleted_by = null where tenant = $1 and feed_uuid = $2 and revision < $3`,
          [tenant, uuid, revision, at, by],
        );
        return;
    }
  },
};
