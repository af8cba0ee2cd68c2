import type { StoredEvent } from '../aggregates/kernel/events.js';
import { calendarEventTypes, calendarUuidOfStream, type CalendarEvent, type CalendarSettings } from '../aggregates/calendar/calendar.events.js';
import { calendarEntryUuidOfStream, entryEventTypes, type EntryEvent, type EntrySettings } from '../aggregates/calendar/calendar-entry.events.js';
import { overridesAfter } from '../aggregates/calendar/calendar-entry.decider.js';
import { spanOf, type Override } from '../aggregates/calendar/occurrences.js';
import type { Sql } from '../ports/sql.js';
import type { Projection } from './projection.js';

const calendarColumns: Record<keyof CalendarSettings | 'ownerUuid', { column: string; json?: boolean }> = {
  name: { column: 'name' },
  description: { column: 'description' },
  timeZone: { column: 'time_zone' },
  color: { column: 'color' },
  teamUuids: { column: 'team_uuids', json: true },
  ownerUuid: { column: 'owner_uuid' },
};

/** `rm_calendars`: one row per calendar, guarded by the stream revision (idempotent). */
export const calendarsProjection: Projection = {
  name: 'calendars',
  tables: ['rm_calendars'],
  handles: calendarEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<CalendarEvent> & CalendarEvent;
    const { tenant, revision } = stored;
    const uuid = calendarUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'CalendarCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_calendars (tenant, calendar_uuid, owner_uuid, name, description, time_zone, color, team_uuids, idx, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, (select count(*) from rm_calendars where tenant = $1), $9, $9, $10, $10, $11)
           on conflict do nothing`,
          [tenant, uuid, d.ownerUuid, d.name, d.description, d.timeZone, d.color, JSON.stringify(d.teamUuids), at, by, revision],
        );
        return;
      }
      case 'CalendarUpdated': {
        const sets: string[] = [];
        const params: unknown[] = [tenant, uuid, revision, at, by];
        for (const [key, value] of Object.entries(event.data.changes) as [keyof typeof calendarColumns, unknown][]) {
          const c = calendarColumns[key];
          params.push(c.json ? JSON.stringify(value) : value);
          sets.push(`${c.column} = $${params.length}${c.json ? '::jsonb' : ''}`);
        }
        await tx.query(`update rm_calendars set revision = $3, updated_at = $4, updated_by = $5${sets.map((s) => `, ${s}`).join('')} where tenant = $1 and calendar_uuid = $2 and revision < $3`, params);
        return;
      }
      case 'CalendarDeleted':
        await tx.query(`update rm_calendars set revision = $3, updated_at = $4, deleted_at = $4, deleted_by = $5 where tenant = $1 and calendar_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by]);
        return;
      case 'CalendarRestored':
        await tx.query(`update rm_calendars set revision = $3, updated_at = $4, updated_by = $5, deleted_at = null, deleted_by = null where tenant = $1 and calendar_uuid = $2 and revision < $3`, [tenant, uuid, revision, at, by]);
        return;
    }
  },
};

interface EntryNow {
  start_wall: string;
  end_wall: string;
  time_zone: string;
  recurrence: string | null;
  overrides: Record<string, Override>;
  revision: number;
}

const entryColumns: Record<keyof EntrySettings, { column: string; json?: boolean }> = {
  title: { column: 'title' },
  description: { column: 'description' },
  location: { column: 'location' },
  start: { column: 'start_wall' },
  end: { column: 'end_wall' },
  timeZone: { column: 'time_zone' },
  allDay: { column: 'all_day' },
  attendees: { column: 'attendees', json: true },
  recurrence: { column: 'recurrence' },
};

async function entryNow(tx: Sql, tenant: string, uuid: string): Promise<EntryNow | null> {
  const [row] = await tx.query<EntryNow>('select start_wall, end_wall, time_zone, recurrence, overrides, revision from rm_calendar_entries where tenant = $1 and entry_uuid = $2', [tenant, uuid]);
  return row ?? null;
}

/**
 * `rm_calendar_entries`: one row per calendar event with its overrides and its span (occurrences.ts),
 * guarded by the stream revision (idempotent).
 */
export const calendarEntriesProjection: Projection = {
  name: 'calendar-entries',
  tables: ['rm_calendar_entries'],
  handles: entryEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<EntryEvent> & EntryEvent;
    const { tenant, revision } = stored;
    const uuid = calendarEntryUuidOfStream(stored.streamId);
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    if (event.type === 'CalendarEntryScheduled') {
      const d = event.data;
      const span = spanOf({ start: d.start, end: d.end, timeZone: d.timeZone, recurrence: d.recurrence, overrides: {} });
      await tx.query(
        `insert into rm_calendar_entries (tenant, entry_uuid, calendar_uuid, title, description, location, start_wall, end_wall, time_zone, all_day, attendees, recurrence, overrides,
           first_at, last_at, idx, created_at, updated_at, created_by, updated_by, revision)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, '{}'::jsonb, $13, $14, (select count(*) from rm_calendar_entries where tenant = $1), $15, $15, $16, $16, $17)
         on conflict do nothing`,
        [tenant, uuid, d.calendarUuid, d.title, d.description, d.location, d.start, d.end, d.timeZone, d.allDay, JSON.stringify(d.attendees), d.recurrence, span.first, span.last, at, by, revision],
      );
      return;
    }
    const now = await entryNow(tx, tenant, uuid);
    if (!now || now.revision >= revision) return;
    const sets: string[] = [];
    const params: unknown[] = [tenant, uuid, revision, at, by];
    const set = (column: string, value: unknown, cast = '') => {
      params.push(value);
      sets.push(`${column} = $${params.length}${cast}`);
    };
    switch (event.type) {
      case 'CalendarEntryDeleted':
        sets.push('deleted_at = $4', 'deleted_by = $5');
        break;
      case 'CalendarEntryRestored':
        sets.push('deleted_at = null', 'deleted_by = null');
        break;
      default:
        if (event.type === 'CalendarEntryChanged') {
          for (const [key, value] of Object.entries(event.data.changes) as [keyof EntrySettings, unknown][]) {
            const c = entryColumns[key];
            set(c.column, c.json ? JSON.stringify(value) : value, c.json ? '::jsonb' : '');
          }
        }
    }
    if (event.type !== 'CalendarEntryDeleted' && event.type !== 'CalendarEntryRestored') {
      const changes = event.type === 'CalendarEntryChanged' ? event.data.changes : {};
      const overrides = overridesAfter(now.overrides, event);
      const span = spanOf({
        start: changes.start ?? now.start_wall,
        end: changes.end ?? now.end_wall,
        timeZone: changes.timeZone ?? now.time_zone,
        recurrence: changes.recurrence === undefined ? now.recurrence : changes.recurrence,
        overrides,
      });
      set('overrides', JSON.stringify(overrides), '::jsonb');
      set('first_at', span.first);
      set('last_at', span.last);
    }
    await tx.query(`update rm_calendar_entries set revision = $3, updated_at = $4, updated_by = $5${sets.map((s) => `, ${s}`).join('')} where tenant = $1 and entry_uuid = $2 and revision < $3`, params);
  },
};
