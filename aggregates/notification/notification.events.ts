import { z } from 'zod';

const uuid = z.string().uuid();

/** What a notification is about (issue 39): the kinds a member may mute. */
export const notificationKinds = ['record.assigned', 'record.mentioned', 'form.submitted'] as const;
export type NotificationKind = (typeof notificationKinds)[number];

/** The resource a notification points to. */
export const notificationSubjectSchema = z.object({ type: z.enum(['record', 'form']), uuid, objectName: z.string().nullable() });
export type NotificationSubject = z.infer<typeof notificationSubjectSchema>;

/**
 * One notification of one member: made by the notifications reactor from the event `cause`
 * (`<streamId>@<revision>`). `userUuid` is in every event's data so a member's live inbox is the
 * tenant's feed narrowed to it.
 */
export const notificationAdded = z.object({
  type: z.literal('NotificationAdded'),
  version: z.literal(1),
  data: z.object({ notificationUuid: uuid, userUuid: uuid, kind: z.enum(notificationKinds), title: z.string(), body: z.string(), subject: notificationSubjectSchema, cause: z.string() }),
});
export const notificationRead = z.object({ type: z.literal('NotificationRead'), version: z.literal(1), data: z.object({ notificationUuid: uuid, userUuid: uuid }) });

export const notificationEventSchema = z.discriminatedUnion('type', [notificationAdded, notificationRead]);
export type NotificationEvent = z.infer<typeof notificationEventSchema>;
export const notificationEventTypes = notificationEventSchema.options.map((o) => o.shape.type.value);

export const NOTIFICATION_STREAM_PREFIX = 'notification-';
export const notificationStream = (notificationUuid: string) => `${NOTIFICATION_STREAM_PREFIX}${notificationUuid}`;
/** The uuid a notification stream is named by (the inverse of `notificationStream`). */
export const notificationUuidOfStream = (streamId: string) => streamId.slice(NOTIFICATION_STREAM_PREFIX.length);

/** A member's choice of the kinds it receives. */
export const inboxPreferencesSet = z.object({ type: z.literal('InboxPreferencesSet'), version: z.literal(1), data: z.object({ userUuid: uuid, muted: z.array(z.enum(notificationKinds)) }) });
export const inboxEventSchema = z.discriminatedUnion('type', [inboxPreferencesSet]);
export type InboxEvent = z.infer<typeof inboxEventSchema>;
export const inboxEventTypes = inboxEventSchema.options.map((o) => o.shape.type.value);

export const INBOX_STREAM_PREFIX = 'inbox-';
export const inboxStream = (userUuid: string) => `${INBOX_STREAM_PREFIX}${userUuid}`;
/** The user a member's inbox stream is named by. */
export const userUuidOfInboxStream = (streamId: string) => streamId.slice(INBOX_STREAM_PREFIX.length);
