import { inboxDecider, notificationDecider, type NotificationCommand } from '../../aggregates/notification/notification.decider.js';
import { inboxStream, notificationStream, type NotificationKind } from '../../aggregates/notification/notification.events.js';
import { notFound } from '../../aggregates/kernel/errors.js';
import { inboxOf, mutedKinds, notificationOf, unreadCount, unreadUuids, type NotificationRow } from '../../read-models/notifications.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';

/** How many notifications one "mark all read" reads at most (the rest on the next call). */
export const MARK_ALL_BATCH = 1000;

/** Each member's notifications (issue 39): reads take the tenant and the member; another member's notification is a 404. */
export function makeNotificationsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;
  const run = (ctx: CommandContext, notificationUuid: string, command: NotificationCommand) =>
    handleCommand({ store, decider: notificationDecider, streamId: notificationStream(notificationUuid), command, context: ctx });

  async function found(tenant: string, userUuid: string, notificationUuid: string): Promise<NotificationRow> {
    const row = await notificationOf(db, tenant, userUuid, notificationUuid);
    if (!row) throw notFound('Notification', notificationUuid);
    return row;
  }

  return {
    found,
    list: (tenant: string, userUuid: string, o: { unread: boolean; kind?: string; limit: number; offset: number }) => inboxOf(db, tenant, userUuid, o),
    unread: (tenant: string, userUuid: string) => unreadCount(db, tenant, userUuid),

    /** Made by the reactor: the uuid comes from the cause, so a second call adds nothing. */
    async add(ctx: CommandContext, n: Omit<Extract<NotificationCommand, { type: 'AddNotification' }>, 'type'>) {
      await run(ctx, n.notificationUuid, { type: 'AddNotification', ...n });
    },

    async read(ctx: CommandContext & { userUuid: string }, notificationUuid: string): Promise<NotificationRow> {
      await found(ctx.tenant, ctx.userUuid, notificationUuid);
      await run(ctx, notificationUuid, { type: 'ReadNotification', userUuid: ctx.userUuid });
      return found(ctx.tenant, ctx.userUuid, notificationUuid);
    },

    /** Marks the member's unread notifications read, up to MARK_ALL_BATCH of them; answers how many and how many are left. */
    async readAll(ctx: CommandContext & { userUuid: string }): Promise<{ read: number; unread: number }> {
      const uuids = await unreadUuids(db, ctx.tenant, ctx.userUuid, MARK_ALL_BATCH);
      for (const uuid of uuids) await run(ctx, uuid, { type: 'ReadNotification', userUuid: ctx.userUuid });
      return { read: uuids.length, unread: await unreadCount(db, ctx.tenant, ctx.userUuid) };
    },

    async preferences(tenant: string, userUuid: string): Promise<NotificationKind[]> {
      return (await mutedKinds(db, tenant, [userUuid])).get(userUuid) ?? [];
    },

    async setPreferences(ctx: CommandContext & { userUuid: string }, muted: NotificationKind[]): Promise<NotificationKind[]> {
      await handleCommand({ store, decider: inboxDecider, streamId: inboxStream(ctx.userUuid), command: { type: 'SetInboxPreferences', userUuid: ctx.userUuid, muted }, context: ctx });
      return (await mutedKinds(db, ctx.tenant, [ctx.userUuid])).get(ctx.userUuid) ?? [];
    },
  };
}
export type NotificationsService = ReturnType<typeof makeNotificationsService>;
