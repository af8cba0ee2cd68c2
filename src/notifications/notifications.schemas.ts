import { z } from 'zod';
import { notificationKinds } from '../../aggregates/notification/notification.events.js';
import type { NotificationRow } from '../../read-models/notifications.queries.js';

export const notificationSchema = z
  .object({
    uuid: z.string(),
    kind: z.enum(notificationKinds),
    title: z.string(),
    body: z.string(),
    subject: z.object({ type: z.enum(['record', 'form']), uuid: z.string(), objectName: z.string().nullable() }),
    cause: z.string().describe('The event that caused it, <streamId>@<revision>; its requestId is the notification event\'s too'),
    read: z.boolean(),
    readAt: z.number().nullable(),
    createdAt: z.number(),
  })
  .meta({ id: 'Notification' });

export const toNotification = (row: NotificationRow): z.infer<typeof notificationSchema> => ({
  uuid: row.notification_uuid,
  kind: row.kind,
  title: row.title,
  body: row.body,
  subject: row.subject,
  cause: row.cause,
  read: row.read_at !== null,
  readAt: row.read_at,
  createdAt: row.created_at,
});

export const preferencesSchema = z
  .object({ muted: z.array(z.enum(notificationKinds)).describe('Kinds you do not receive'), kinds: z.array(z.enum(notificationKinds)).describe('Every kind there is') })
  .meta({ id: 'InboxPreferences' });
export const preferencesBodySchema = z.object({ muted: z.array(z.enum(notificationKinds)).max(notificationKinds.length) }).strict().meta({ id: 'InboxPreferencesUpdate' });
