import type { Override } from '../aggregates/calendar/occurrences.js';
import type { Sql } from '../ports/sql.js';
import type { AuditRow } from './audit-row.js';
import { likeContains } from './list-spec.js';

export interface CalendarRow extends AuditRow {
  tenant: string;
  calendar_uuid: string;
  owner_uuid: string;
  name: string;
  description: string;
  time_zone: string;
  color: string | null;
  team_uuids: string[];
}

export interface CalendarEntryRow extends AuditRow {
  tenant: string;
  entry_uuid: string;
  calendar_uuid: string;
  title: string;
  description: string;
  location: string;
  start_wall: string;
  end_wall: string;
  time_zone: string;
  all_day: boolean;
  attendees: string[];
  recurrence: string | null;
  overrides: Record<string, Override>;
  first_at: number;
  last_at: number | null;
}

/** Who reads: admins see every calendar of the company, a member its own and those shared with one of its teams. */
export interface CalendarReader {
  userUuid: string;
  admin: boolean;
}

const visible = (alias: string) => `($3::boolean or ${alias}.owner_uuid = $2::uuid
  or exists (select 1 from team_members tm where tm.tenant = ${alias}.tenant::uuid and tm.user_uuid = $2::uuid and ${alias}.team_uuids ? tm.team_uuid::text))`;

/** A calendar of the tenant that `reader` may see, deleted or not (null: none, or not visible). */
export async function visibleCalendar(sql: Sql, tenant: string, reader: CalendarReader, calendarUuid: string): Promise<CalendarRow | null> {
  const [row] = await sql.query<CalendarRow>(`select c.* from rm_calendars c where c.tenant = $1 and ${visible('c')} and c.calendar_uuid = $4`, [tenant, reader.userUuid, reader.admin, calendarUuid]);
  return row ?? null;
}

/** The calendars `reader` may see (or the deleted ones), oldest first; `query` searches names. */
export async function listCalendars(sql: Sql, tenant: string, reader: CalendarReader, o: { deleted: boolean; query?: string; limit: number; offset: number }): Promise<{ rows: CalendarRow[]; total: number }> {
  const where = `c.tenant = $1 and ${visible('c')} and (c.deleted_at is not null) = $4 and ($5::text is null or c.name ilike $5)`;
  const params = [tenant, reader.userUuid, reader.admin, o.deleted, o.query ? likeContains(o.query) : null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_calendars c where ${where}`, params);
  const rows = await sql.query<CalendarRow>(`select c.* from rm_calendars c where ${where} order by c.created_at, c.calendar_uuid limit $6 offset $7`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

/** An event of the calendar, deleted or not (null when the calendar has none with this uuid). */
export async function calendarEntry(sql: Sql, tenant: string, calendarUuid: string, entryUuid: string): Promise<CalendarEntryRow | null> {
  const [row] = await sql.query<CalendarEntryRow>('select * from rm_calendar_entries where tenant = $1 and calendar_uuid = $2 and entry_uuid = $3', [tenant, calendarUuid, entryUuid]);
  return row ?? null;
}

/** The calendar's events (or the deleted ones), by first start; `query` searches titles and locations. */
export async function listCalendarEntries(sql: Sql, tenant: string, calendarUuid: string, o: { deleted: boolean; query?: string; limit: number; offset: number }): Promise<{ rows: CalendarEntryRow[]; total: number }> {
  const where = `tenant = $1 and calendar_uuid = $2 and (deleted_at is not null) = $3 and ($4::text is null or title ilike $4 or location ilike $4)`;
  const params = [tenant, calendarUuid, o.deleted, o.query ? likeContains(o.query) : null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_calendar_entries where ${where}`, params);
  const rows = await sql.query<CalendarEntryRow>(`select * from rm_calendar_entries where ${where} order by first_at, entry_uuid limit $5 offset $6`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

/** The calendar's live events whose span meets [from, to) (ms): what a window expands. */
export async function calendarEntriesBetween(sql: Sql, tenant: string, calendarUuid: string, from: number, to: number): Promise<CalendarEntryRow[]> {
  return sql.query<CalendarEntryRow>(
    `select * from rm_calendar_entries where tenant = $1 and calendar_uuid = $2 and deleted_at is null and first_at < $4 and (last_at is null or last_at > $3) order by first_at, entry_uuid`,
    [tenant, calendarUuid, from, to],
  );
}

/** The calendar's live events, all of them (the iCalendar export). */
export async function liveCalendarEntries(sql: Sql, tenant: string, calendarUuid: string): Promise<CalendarEntryRow[]> {
  return sql.query<CalendarEntryRow>('select * from rm_calendar_entries where tenant = $1 and calendar_uuid = $2 and deleted_at is null order by first_at, entry_uuid', [tenant, calendarUuid]);
}

/** Which of `userUuids` are active members of the company. */
export async function membersAmong(sql: Sql, tenant: string, userUuids: readonly string[]): Promise<Set<string>> {
  if (userUuids.length === 0) return new Set();
  const rows = await sql.query<{ user_uuid: string }>('select user_uuid from memberships where tenant = $1::uuid and user_uuid = any($2::uuid[]) and active', [tenant, userUuids]);
  return new Set(rows.map((r) => r.user_uuid));
}

/** Which of `teamUuids` are live teams of the company. */
export async function teamsAmong(sql: Sql, tenant: string, teamUuids: readonly string[]): Promise<Set<string>> {
  if (teamUuids.length === 0) return new Set();
  const rows = await sql.query<{ team_uuid: string }>('select team_uuid from teams where tenant = $1::uuid and team_uuid = any($2::uuid[]) and deleted_at is null', [tenant, teamUuids]);
  return new Set(rows.map((r) => r.team_uuid));
}

/** The e-mail of each user (the attendees of an iCalendar export). */
export async function emailsOf(sql: Sql, userUuids: readonly string[]): Promise<Map<string, string>> {
  if (userUuids.length === 0) return new Map();
  const rows = await sql.query<{ user_uuid: string; email: string }>('select user_uuid, email from users where user_uuid = any($1::uuid[])', [userUuids]);
  return new Map(rows.map((r) => [r.user_uuid, r.email]));
}
