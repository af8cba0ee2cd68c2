import { z } from 'zod';
import { MAX_SHARED_TEAMS } from '../../aggregates/calendar/calendar.decider.js';
import { MAX_ATTENDEES } from '../../aggregates/calendar/calendar-entry.decider.js';
import { isoIn, OCCURRENCE_ID, spanOf, type Occurrence } from '../../aggregates/calendar/occurrences.js';
import type { CalendarEntryRow, CalendarRow } from '../../read-models/calendars.queries.js';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import { seriesOf } from './calendars.service.js';

const time = z.string().min(10).max(40);
const zone = z.string().min(1).max(64).describe('IANA time zone, e.g. Europe/Paris');

const calendarFields = {
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  timeZone: zone.optional().describe("IANA time zone of the calendar's new events (default UTC)"),
  color: z.string().max(7).regex(/^#[0-9a-fA-F]{6}$/).nullable().optional().describe('#rrggbb'),
  teamUuids: z.array(z.uuid()).max(MAX_SHARED_TEAMS).optional().describe("Teams whose members may read the calendar (only the owner and the company's admins change it)"),
};

export const createCalendarBodySchema = z.object(calendarFields).strict().meta({ id: 'CalendarCreate' });
export const updateCalendarBodySchema = z
  .object({ ...calendarFields, name: calendarFields.name.optional(), ownerUuid: z.uuid().optional().describe('Hands the calendar to another member') })
  .strict()
  .meta({ id: 'CalendarUpdate' });

export const calendarSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    description: z.string(),
    timeZone: z.string(),
    color: z.string().nullable(),
    ownerUuid: z.string(),
    teamUuids: z.array(z.string()),
    ...auditFields,
  })
  .meta({ id: 'Calendar' });

export const toCalendar = (row: CalendarRow, actors: Actors): z.infer<typeof calendarSchema> => ({
  uuid: row.calendar_uuid,
  name: row.name,
  description: row.description,
  timeZone: row.time_zone,
  color: row.color,
  ownerUuid: row.owner_uuid,
  teamUuids: row.team_uuids,
  ...auditFieldsOf(row, actors),
});

const entryFields = {
  title: z.string().min(1).max(200),
  description: z.string().max(10_000).optional(),
  location: z.string().max(500).optional(),
  start: time.describe('2026-03-16T09:00 (wall clock in timeZone), an instant with an offset (2026-03-16T08:00:00Z), or a date for an all-day event'),
  end: time.optional().describe('After start (default: an hour later, a day for an all-day event)'),
  timeZone: zone.optional().describe("Default: the calendar's"),
  allDay: z.boolean().optional(),
  attendees: z.array(z.uuid()).max(MAX_ATTENDEES).optional().describe("User uuids of the company's members"),
  recurrence: z.string().max(500).nullable().optional().describe('RFC 5545 RRULE, e.g. FREQ=WEEKLY;BYDAY=MO;COUNT=10 (at most hourly); null: a single event'),
};

export const createEntryBodySchema = z.object(entryFields).strict().meta({ id: 'CalendarEventCreate' });
export const updateEntryBodySchema = z.object({ ...entryFields, title: entryFields.title.optional(), start: entryFields.start.optional() }).strict().meta({ id: 'CalendarEventUpdate' });
export const occurrenceBodySchema = z
  .object({ start: time.optional(), end: time.optional(), title: z.string().min(1).max(200).optional(), description: z.string().max(10_000).optional(), location: z.string().max(500).optional() })
  .strict()
  .meta({ id: 'CalendarOccurrenceChange' });

export const occurrenceIdParam = z.string().max(15).regex(OCCURRENCE_ID).describe("The series occurrence's wall-clock start, e.g. 20260316T090000 (occurrenceId of GET .../occurrences)");

const changedOccurrence = z.object({
  occurrenceId: z.string(),
  cancelled: z.boolean(),
  start: z.string().optional(),
  end: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  location: z.string().optional(),
});

export const entrySchema = z
  .object({
    uuid: z.string(),
    calendarUuid: z.string(),
    title: z.string(),
    description: z.string(),
    location: z.string(),
    start: z.string().describe('Wall-clock start in timeZone'),
    end: z.string(),
    timeZone: z.string(),
    allDay: z.boolean(),
    attendees: z.array(z.string()),
    recurrence: z.string().nullable(),
    changedOccurrences: z.array(changedOccurrence).describe('Occurrences changed or cancelled apart from their series'),
    firstStartsAt: z.string().describe('The first start, ISO 8601 with its offset'),
    lastEndsAt: z.string().nullable().describe('The last end; null when the series repeats without end'),
    ...auditFields,
  })
  .meta({ id: 'CalendarEvent' });

export const toEntry = (row: CalendarEntryRow, actors: Actors): z.infer<typeof entrySchema> => {
  const span = spanOf(seriesOf(row));
  return {
    uuid: row.entry_uuid,
    calendarUuid: row.calendar_uuid,
    title: row.title,
    description: row.description,
    location: row.location,
    start: row.start_wall,
    end: row.end_wall,
    timeZone: row.time_zone,
    allDay: row.all_day,
    attendees: row.attendees,
    recurrence: row.recurrence,
    changedOccurrences: Object.entries(row.overrides).sort(([a], [b]) => a.localeCompare(b)).map(([occurrenceId, o]) => (o.cancelled ? { occurrenceId, cancelled: true } : { occurrenceId, ...o, cancelled: false })),
    firstStartsAt: isoIn(span.first, row.time_zone),
    lastEndsAt: span.last === null ? null : isoIn(span.last, row.time_zone),
    ...auditFieldsOf(row, actors),
  };
};

export const occurrenceSchema = z
  .object({
    eventUuid: z.string(),
    occurrenceId: z.string(),
    title: z.string(),
    description: z.string(),
    location: z.string(),
    start: z.string().describe('ISO 8601 with the offset of timeZone at that instant'),
    end: z.string(),
    timeZone: z.string(),
    allDay: z.boolean(),
    attendees: z.array(z.string()),
    recurring: z.boolean(),
    changed: z.boolean().describe('Changed apart from its series'),
  })
  .meta({ id: 'CalendarOccurrence' });

export const toOccurrence = (row: CalendarEntryRow, o: Occurrence): z.infer<typeof occurrenceSchema> => ({
  eventUuid: row.entry_uuid,
  occurrenceId: o.occurrenceId,
  title: o.override?.title ?? row.title,
  description: o.override?.description ?? row.description,
  location: o.override?.location ?? row.location,
  start: row.all_day ? o.startWall.slice(0, 10) : isoIn(o.start, row.time_zone),
  end: row.all_day ? o.endWall.slice(0, 10) : isoIn(o.end, row.time_zone),
  timeZone: row.time_zone,
  allDay: row.all_day,
  attendees: row.attendees,
  recurring: row.recurrence !== null,
  changed: o.override !== null,
});

