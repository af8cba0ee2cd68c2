import type { StoredEvent } from '../aggregates/kernel/events.js';
import { inboxEventTypes, notificationEventTypes, notificationUuidOfStream, userUuidOfInboxStream, type InboxEvent, type NotificationEvent } from '../aggregates/notification/notification.events.js';
import type { Projection } from './projection.js';

/** `rm_notifications`: one row per notification, guarded by the stream revision (idempotent). */
export const notificationsProjection: Projection = {
  name: 'notifications',
  tables: ['rm_notifications'],
  handles: notificationEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<NotificationEvent> & NotificationEvent;
    const { tenant, revision } = stored;
    const uuid = notificationUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    switch (event.type) {
      case 'NotificationAdded': {
        const d = event.data;
        await tx.query(
          `insert into rm_notifications (tenant, notification_uuid, user_uuid, kind, title, body, subject, cause, created_at, revision)
           values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10) on conflict do nothing`,
          [tenant, uuid, d.userUuid, d.kind, d.title, d.body, JSON.stringify(d.subject), d.cause, at, revision],
        );
        return;
      }
      case 'NotificationRead':
        await tx.query('update rm_notifications set read_at = $3, revision = $4 where tenant = $1 and notification_uuid = $2 and revision < $4', [tenant, uuid, at, revision]);
        return;
    }
  },
};

/** `rm_inbox_preferences`: a member's muted kinds. */
export const inboxPreferencesProjection: Projection = {
  name: 'inbox-preferences',
  tables: ['rm_inbox_preferences'],
  handles: inboxEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<InboxEvent> & InboxEvent;
    await tx.query(
      `insert into rm_inbox_preferences (tenant, user_uuid, muted, revision) values ($1, $2, $3::jsonb, $4)
       on conflict (tenant, user_uuid) do update set muted = excluded.muted, revision = excluded.revision where rm_inbox_preferences.revision < excluded.revision`,
      [stored.tenant, userUuidOfInboxStream(stored.streamId), JSON.stringify(event.data.muted), stored.revision],
    );
  },
};
