import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { TEAM_STREAM_PREFIX, teamUuidOfStream } from '../../aggregates/team/team.events.js';
import type { NotificationKind, NotificationSubject } from '../../aggregates/notification/notification.events.js';
import { activeMembersAmong, activeTeamMembers, formOwner, mutedKinds, teamName } from '../../read-models/notifications.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { Reactor } from '../reactors/runner.js';
import type { NotificationsService } from './notifications.service.js';

/** A notification to make: one member, one kind, from one event. */
export interface Notice {
  userUuid: string;
  kind: NotificationKind;
  title: string;
  body: string;
  subject: NotificationSubject;
}

const MENTIONS = [/data-mention="([0-9a-fA-F-]{36})"/g, /\(user:([0-9a-fA-F-]{36})\)/g];

/** The users mentioned in a value: `<span data-mention="<userUuid>">` in rich text, or `@[Name](user:<userUuid>)`. */
export function mentionsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    for (const pattern of MENTIONS) for (const m of value.matchAll(pattern)) found.add(m[1]!.toLowerCase());
  } else if (Array.isArray(value)) value.forEach((v) => mentionsIn(v, found));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => mentionsIn(v, found));
  return found;
}

/** A notification's uuid from its cause, member and kind: the same notice made twice is one notification. */
export function noticeUuid(tenant: string, cause: string, userUuid: string, kind: string): string {
  const h = createHash('sha256').update(`${tenant}|${cause}|${userUuid}|${kind}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The event's id as causationId carries it: `<streamId>@<revision>` (the syncs reactor's form). */
const causeOf = (e: StoredEvent) => `${e.streamId}@${e.revision}`;

const HANDLED = new Set(['TeamRecordAssigned', 'FormSubmissionEvent', 'RecordCreated', 'RecordUpdated']);

/**
 * The notifications reactor (issue 39): reads the log and makes each member's notifications, as
 * commands (idempotent: the uuid comes from the cause). The actor of an event is never told of
 * its own act; muted kinds are not made. Runs with its own checkpoint (src/reactors/runner.ts).
 */
export function notificationsReactor(deps: { db: Db; notifications: NotificationsService; log: FastifyBaseLogger }): Reactor<void> {
  const { db, notifications } = deps;

  async function noticesOf(e: StoredEvent): Promise<Notice[]> {
    const data = e.data as Record<string, any>;
    switch (e.type) {
      case 'TeamRecordAssigned': {
        if (!e.streamId.startsWith(TEAM_STREAM_PREFIX)) return [];
        const team = teamUuidOfStream(e.streamId);
        const name = (await teamName(db, e.tenant, team)) ?? 'your team';
        return (await activeTeamMembers(db, e.tenant, team)).map((userUuid) => ({
          userUuid, kind: 'record.assigned' as const, title: `A record was assigned to ${name}`, body: `Record ${data.recordUuid} is now assigned to ${name}.`, subject: { type: 'record' as const, uuid: data.recordUuid, objectName: null },
        }));
      }
      case 'FormSubmissionEvent': {
        const form = await formOwner(db, e.tenant, data.formUuid);
        if (!form?.created_by) return [];
        return [{ userUuid: form.created_by, kind: 'form.submitted', title: `New submission of ${form.name}`, body: `A ${data.objectName} record was created from form ${form.name}.`, subject: { type: 'form', uuid: data.formUuid, objectName: data.objectName } }];
      }
      case 'RecordCreated':
      case 'RecordUpdated': {
        const now = e.type === 'RecordCreated' ? mentionsIn(data.properties) : mentionsIn(Object.values(data.changes ?? {}).map((c: any) => c?.after));
        if (e.type === 'RecordUpdated') for (const before of mentionsIn(Object.values(data.changes ?? {}).map((c: any) => c?.before))) now.delete(before);
        const members = await activeMembersAmong(db, e.tenant, [...now]);
        return members.map((userUuid) => ({
          userUuid, kind: 'record.mentioned' as const, title: `You were mentioned in a ${data.objectName} record`, body: `Record ${data.uuid} mentions you.`, subject: { type: 'record' as const, uuid: data.uuid, objectName: data.objectName },
        }));
      }
      default:
        return [];
    }
  }

  return {
    name: 'notifications',
    handles: (e) => HANDLED.has(e.type),
    async prepare(events) {
      for (const e of events) {
        const notices = (await noticesOf(e)).filter((n) => n.userUuid !== e.metadata.userUuid);
        if (notices.length === 0) continue;
        const muted = await mutedKinds(db, e.tenant, notices.map((n) => n.userUuid));
        const cause = causeOf(e);
        const ctx: CommandContext = { tenant: e.tenant, userUuid: null, requestId: e.metadata.requestId, correlationId: e.metadata.correlationId, causationId: cause, now: Date.now() };
        for (const n of notices) {
          if (muted.get(n.userUuid)?.includes(n.kind)) continue;
          await notifications.add(ctx, { ...n, notificationUuid: noticeUuid(e.tenant, cause, n.userUuid, n.kind), cause });
        }
      }
    },
    async commit() {},
  };
}
