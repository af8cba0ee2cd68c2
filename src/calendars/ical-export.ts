import ical, { ICalCalendarMethod, ICalAttendeeRole, ICalAttendeeStatus } from 'ical-generator';
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import { DateTime } from 'luxon';
import { wallOfOccurrenceId } from '../../aggregates/calendar/occurrences.js';
import type { CalendarEntryRow, CalendarRow } from '../../read-models/calendars.queries.js';

const length = (row: CalendarEntryRow) => Date.parse(`${row.end_wall}Z`) - Date.parse(`${row.start_wall}Z`);
const zoned = (wall: string, zone: string) => DateTime.fromISO(wall, { zone });

/**
 * One calendar as iCalendar (RFC 5545), through `ical-generator`: each event a VEVENT in its own
 * zone (with the zone's VTIMEZONE) and its RRULE; cancelled occurrences as EXDATE; changed ones
 * as VEVENTs with the series' UID and a RECURRENCE-ID, as calendar clients expect.
 */
export function calendarAsICal(calendar: CalendarRow, entries: readonly CalendarEntryRow[], emails: ReadonlyMap<string, string>, host: string): string {
  const cal = ical({
    name: calendar.name,
    description: calendar.description || undefined,
    prodId: { company: 'platform', product: 'calendars', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    timezone: { name: calendar.time_zone, generator: getVtimezoneComponent },
  });
  for (const row of entries) {
    const uid = `${row.entry_uuid}@${host}`;
    const attendees = row.attendees.flatMap((a) => (emails.has(a) ? [{ email: emails.get(a)!, role: ICalAttendeeRole.REQ, status: ICalAttendeeStatus.NEEDSACTION }] : []));
    const base = {
      id: uid,
      timezone: row.time_zone,
      allDay: row.all_day,
      stamp: new Date(row.updated_at),
      created: new Date(row.created_at),
      lastModified: new Date(row.updated_at),
      attendees,
    };
    const cancelled = Object.entries(row.overrides).filter(([, o]) => o.cancelled).map(([id]) => id);
    const exdates = cancelled.map((id) => (row.all_day ? `EXDATE;VALUE=DATE:${id.slice(0, 8)}` : `EXDATE;TZID=${row.time_zone}:${id}`));
    cal.createEvent({
      ...base,
      start: zoned(row.start_wall, row.time_zone),
      end: zoned(row.end_wall, row.time_zone),
      summary: row.title,
      description: row.description || undefined,
      location: row.location || undefined,
      ...(row.recurrence ? { repeating: [`RRULE:${row.recurrence}`, ...exdates].join('\n') } : {}),
    });
    for (const [id, o] of Object.entries(row.overrides)) {
      if (o.cancelled) continue;
      const start = o.start ?? wallOfOccurrenceId(id);
      const end = o.end ?? new Date(Date.parse(`${start}Z`) + length(row)).toISOString().slice(0, 19);
      cal.createEvent({
        ...base,
        start: zoned(start, row.time_zone),
        end: zoned(end, row.time_zone),
        recurrenceId: zoned(wallOfOccurrenceId(id), row.time_zone),
        summary: o.title ?? row.title,
        description: (o.description ?? row.description) || undefined,
        location: (o.location ?? row.location) || undefined,
      });
    }
  }
  return cal.toString();
}

