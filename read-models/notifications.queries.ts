import type { NotificationKind, NotificationSubject } from '../aggregates/notification/notification.events.js';
import type { Sql } from '../ports/sql.js';

export interface NotificationRow {
  tenant: string;
  notification_uuid: string;
  user_uuid: string;
  kind: NotificationKind;
  title: string;
  body: string;
  subject: NotificationSubject;
  cause: string;
  created_at: number;
  read_at: number | null;
  revision: number;
}

/** A member's notification (null: none, or another member's). */
export async function notificationOf(sql: Sql, tenant: string, userUuid: string, notificationUuid: string): Promise<NotificationRow | null> {
  const [row] = await sql.query<NotificationRow>('select * from rm_notifications where tenant = $1 and user_uuid = $2 and notification_uuid = $3', [tenant, userUuid, notificationUuid]);
  return row ?? null;
}

/** A member's notifications, newest first (only the unread ones with `unread`). */
export async function inboxOf(sql: Sql, tenant: string, userUuid: string, o: { unread: boolean; kind?: string; limit: number; offset: number }): Promise<{ rows: NotificationRow[]; total: number }> {
  const where = 'tenant = $1 and user_uuid = $2 and (not $3::boolean or read_at is null) and ($4::text is null or kind = $4)';
  const params = [tenant, userUuid, o.unread, o.kind ?? null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_notifications where ${where}`, params);
  const rows = await sql.query<NotificationRow>(`select * from rm_notifications where ${where} order by created_at desc, notification_uuid desc limit $5 offset $6`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

export async function unreadCount(sql: Sql, tenant: string, userUuid: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>('select count(*)::int as n from rm_notifications where tenant = $1 and user_uuid = $2 and read_at is null', [tenant, userUuid]);
  return row?.n ?? 0;
}

/** The uuids of a member's unread notifications, oldest first, at most `limit`. */
export async function unreadUuids(sql: Sql, tenant: string, userUuid: string, limit: number): Promise<string[]> {
  const rows = await sql.query<{ notification_uuid: string }>('select notification_uuid from rm_notifications where tenant = $1 and user_uuid = $2 and read_at is null order by created_at, notification_uuid limit $3', [tenant, userUuid, limit]);
  return rows.map((r) => r.notification_uuid);
}

/** Each member's muted kinds (members without preferences are left out). */
export async function mutedKinds(sql: Sql, tenant: string, userUuids: readonly string[]): Promise<Map<string, NotificationKind[]>> {
  if (userUuids.length === 0) return new Map();
  const rows = await sql.query<{ user_uuid: string; muted: NotificationKind[] }>('select user_uuid, muted from rm_inbox_preferences where tenant = $1 and user_uuid = any($2::uuid[])', [tenant, userUuids]);
  return new Map(rows.map((r) => [r.user_uuid, r.muted]));
}

/** The active members of a team of the company (who hears of a record assigned to it). */
export async function activeTeamMembers(sql: Sql, tenant: string, teamUuid: string): Promise<string[]> {
  const rows = await sql.query<{ user_uuid: string }>(
    `select tm.user_uuid from team_members tm join memberships m on m.tenant = tm.tenant and m.user_uuid = tm.user_uuid and m.active
      where tm.tenant = $1::uuid and tm.team_uuid = $2::uuid`,
    [tenant, teamUuid],
  );
  return rows.map((r) => r.user_uuid);
}

/** Which of `userUuids` are active members of the company. */
export async function activeMembersAmong(sql: Sql, tenant: string, userUuids: readonly string[]): Promise<string[]> {
  if (userUuids.length === 0) return [];
  const rows = await sql.query<{ user_uuid: string }>('select user_uuid from memberships where tenant = $1::uuid and user_uuid = any($2::uuid[]) and active', [tenant, userUuids]);
  return rows.map((r) => r.user_uuid);
}

/** The team's name, the form's name and creator: what a notification's text says. */
export async function teamName(sql: Sql, tenant: string, teamUuid: string): Promise<string | null> {
  const [row] = await sql.query<{ name: string }>('select name from teams where tenant = $1::uuid and team_uuid = $2::uuid', [tenant, teamUuid]);
  return row?.name ?? null;
}
export async function formOwner(sql: Sql, tenant: string, formUuid: string): Promise<{ name: string; created_by: string | null } | null> {
  const [row] = await sql.query<{ name: string; created_by: string | null }>('select name, created_by from rm_forms where tenant = $1 and form_uuid = $2', [tenant, formUuid]);
  return row ?? null;
}
