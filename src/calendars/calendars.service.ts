import { randomUUID } from 'node:crypto';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { calendarDecider, type CalendarCommand, type CalendarFacts, type CalendarInput } from '../../aggregates/calendar/calendar.decider.js';
import { calendarStream } from '../../aggregates/calendar/calendar.events.js';
import { calendarEntryDecider, type EntryCommand, type EntryFacts, type EntryInput, type OccurrenceInput } from '../../aggregates/calendar/calendar-entry.decider.js';
import { calendarEntryStream } from '../../aggregates/calendar/calendar-entry.events.js';
import { MAX_OCCURRENCES, MAX_WINDOW_DAYS, occurrencesBetween, type Occurrence } from '../../aggregates/calendar/occurrences.js';
import {
  calendarEntriesBetween, calendarEntry, emailsOf, listCalendarEntries, listCalendars, liveCalendarEntries, membersAmong, teamsAmong, visibleCalendar,
  type CalendarEntryRow, type CalendarReader, type CalendarRow,
} from '../../read-models/calendars.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';

/** Who writes: the command context and whether the caller is an admin of the company. */
export interface CalendarCaller {
  ctx: CommandContext;
  admin: boolean;
}

type ListOptions = { deleted: boolean; query?: string; limit: number; offset: number };

/**
 * Calendars and their events (issue 39). A calendar another member keeps unshared is the same 404
 * as a missing one; one the caller may read but not change is a 403 on writes (the deciders).
 */
export function makeCalendarsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;
  const readerOf = (caller: CalendarCaller): CalendarReader => ({ userUuid: caller.ctx.userUuid ?? '', admin: caller.admin });

  async function calendar(tenant: string, reader: CalendarReader, calendarUuid: string, opts: { deleted?: boolean | 'either' } = {}): Promise<CalendarRow> {
    const row = await visibleCalendar(db, tenant, reader, calendarUuid);
    if (!row || (opts.deleted !== 'either' && (row.deleted_at !== null) !== (opts.deleted ?? false))) throw notFound('Calendar', calendarUuid);
    return row;
  }

  async function calendarFacts(caller: CalendarCaller, input: CalendarInput): Promise<CalendarFacts> {
    const teams = await teamsAmong(db, caller.ctx.tenant, input.teamUuids ?? []);
    const owner = input.ownerUuid === undefined ? undefined : (await membersAmong(db, caller.ctx.tenant, [input.ownerUuid])).has(input.ownerUuid);
    return { caller: { userUuid: caller.ctx.userUuid ?? '', admin: caller.admin }, teams: Object.fromEntries((input.teamUuids ?? []).map((t) => [t, teams.has(t)])), ownerIsMember: owner };
  }

  const runCalendar = (ctx: CommandContext, calendarUuid: string, command: CalendarCommand) =>
    handleCommand({ store, decider: calendarDecider, streamId: calendarStream(calendarUuid), command, context: ctx });

  async function entry(tenant: string, calendarUuid: string, entryUuid: string, opts: { deleted?: boolean | 'either' } = {}): Promise<CalendarEntryRow> {
    const row = await calendarEntry(db, tenant, calendarUuid, entryUuid);
    if (!row || (opts.deleted !== 'either' && (row.deleted_at !== null) !== (opts.deleted ?? false))) throw notFound('Event', entryUuid);
    return row;
  }

  async function entryFacts(caller: CalendarCaller, cal: CalendarRow, attendees: readonly string[] = []): Promise<EntryFacts> {
    const members = await membersAmong(db, caller.ctx.tenant, attendees);
    return {
      caller: { userUuid: caller.ctx.userUuid ?? '', admin: caller.admin },
      calendar: { uuid: cal.calendar_uuid, ownerUuid: cal.owner_uuid, timeZone: cal.time_zone },
      members: Object.fromEntries(attendees.map((a) => [a, members.has(a)])),
    };
  }

  const runEntry = (ctx: CommandContext, entryUuid: string, command: EntryCommand) =>
    handleCommand({ store, decider: calendarEntryDecider, streamId: calendarEntryStream(entryUuid), command, context: ctx });

  return {
    calendar: (tenant: string, reader: CalendarReader, calendarUuid: string) => calendar(tenant, reader, calendarUuid),
    listCalendars: (tenant: string, reader: CalendarReader, o: ListOptions) => listCalendars(db, tenant, reader, o),

    async createCalendar(caller: CalendarCaller, input: CalendarInput): Promise<CalendarRow> {
      const calendarUuid = randomUUID();
      await runCalendar(caller.ctx, calendarUuid, { type: 'CreateCalendar', calendarUuid, input, facts: await calendarFacts(caller, input) });
      return calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
    },

    async updateCalendar(caller: CalendarCaller, calendarUuid: string, input: CalendarInput): Promise<CalendarRow> {
      await calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
      await runCalendar(caller.ctx, calendarUuid, { type: 'UpdateCalendar', input, facts: await calendarFacts(caller, input) });
      // A new owner may leave the caller unable to see the calendar: read it as an admin would.
      return calendar(caller.ctx.tenant, { ...readerOf(caller), admin: true }, calendarUuid);
    },

    async removeCalendar(caller: CalendarCaller, calendarUuid: string) {
      await calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
      await runCalendar(caller.ctx, calendarUuid, { type: 'DeleteCalendar', facts: await calendarFacts(caller, {}) });
    },

    async restoreCalendar(caller: CalendarCaller, calendarUuid: string): Promise<CalendarRow> {
      await calendar(caller.ctx.tenant, readerOf(caller), calendarUuid, { deleted: 'either' });
      await runCalendar(caller.ctx, calendarUuid, { type: 'RestoreCalendar', facts: await calendarFacts(caller, {}) });
      return calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
    },

    async entry(tenant: string, reader: CalendarReader, calendarUuid: string, entryUuid: string): Promise<CalendarEntryRow> {
      await calendar(tenant, reader, calendarUuid);
      return entry(tenant, calendarUuid, entryUuid);
    },

    async listEntries(tenant: string, reader: CalendarReader, calendarUuid: string, o: ListOptions) {
      await calendar(tenant, reader, calendarUuid);
      return listCalendarEntries(db, tenant, calendarUuid, o);
    },

    async scheduleEntry(caller: CalendarCaller, calendarUuid: string, input: EntryInput): Promise<CalendarEntryRow> {
      const cal = await calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
      const entryUuid = randomUUID();
      await runEntry(caller.ctx, entryUuid, { type: 'ScheduleEntry', entryUuid, input, facts: await entryFacts(caller, cal, input.attendees) });
      return entry(caller.ctx.tenant, calendarUuid, entryUuid);
    },

    async changeEntry(caller: CalendarCaller, calendarUuid: string, entryUuid: string, input: EntryInput): Promise<CalendarEntryRow> {
      const cal = await calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
      await entry(caller.ctx.tenant, calendarUuid, entryUuid);
      await runEntry(caller.ctx, entryUuid, { type: 'ChangeEntry', input, facts: await entryFacts(caller, cal, input.attendees) });
      return entry(caller.ctx.tenant, calendarUuid, entryUuid);
    },

    async removeEntry(caller: CalendarCaller, calendarUuid: string, entryUuid: string) {
      const cal = await calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
      await entry(caller.ctx.tenant, calendarUuid, entryUuid);
      await runEntry(caller.ctx, entryUuid, { type: 'DeleteEntry', facts: await entryFacts(caller, cal) });
    },

    async restoreEntry(caller: CalendarCaller, calendarUuid: string, entryUuid: string): Promise<CalendarEntryRow> {
      const cal = await calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
      await entry(caller.ctx.tenant, calendarUuid, entryUuid, { deleted: 'either' });
      await runEntry(caller.ctx, entryUuid, { type: 'RestoreEntry', facts: await entryFacts(caller, cal) });
      return entry(caller.ctx.tenant, calendarUuid, entryUuid);
    },

    /** Changes, cancels or resets one occurrence of a series; the series stays as it is. */
    async occurrence(caller: CalendarCaller, calendarUuid: string, entryUuid: string, occurrenceId: string, change: { type: 'change'; input: OccurrenceInput } | { type: 'cancel' } | { type: 'reset' }) {
      const cal = await calendar(caller.ctx.tenant, readerOf(caller), calendarUuid);
      await entry(caller.ctx.tenant, calendarUuid, entryUuid);
      const facts = await entryFacts(caller, cal);
      const command: EntryCommand =
        change.type === 'change' ? { type: 'ChangeOccurrence', occurrenceId, input: change.input, facts }
        : change.type === 'cancel' ? { type: 'CancelOccurrence', occurrenceId, facts }
        : { type: 'ResetOccurrence', occurrenceId, facts };
      await runEntry(caller.ctx, entryUuid, command);
      return entry(caller.ctx.tenant, calendarUuid, entryUuid);
    },

    /** The calendar's occurrences overlapping [from, to), recurrences expanded, in start order. */
    async occurrences(tenant: string, reader: CalendarReader, calendarUuid: string, from: number, to: number): Promise<{ entry: CalendarEntryRow; occurrence: Occurrence }[]> {
      if (!(to > from) || to - from > MAX_WINDOW_DAYS * 86_400_000) {
        const message = `the window must end after it starts and cover at most ${MAX_WINDOW_DAYS} days`;
        throw new DomainError('VALIDATION_FAILED', message, [{ message, type: 'INVALID_DATE', correctionSuggestion: 'Send from and to at most a year apart, e.g. from=2026-03-01&to=2026-04-01', field: 'querystring.to' }]);
      }
      await calendar(tenant, reader, calendarUuid);
      const out: { entry: CalendarEntryRow; occurrence: Occurrence }[] = [];
      for (const row of await calendarEntriesBetween(db, tenant, calendarUuid, from, to)) {
        for (const occurrence of occurrencesBetween(seriesOf(row), from, to)) {
          out.push({ entry: row, occurrence });
          if (out.length > MAX_OCCURRENCES) {
            const message = `the window holds more than ${MAX_OCCURRENCES} occurrences`;
            throw new DomainError('VALIDATION_FAILED', message, [{ message, type: 'VALIDATION', correctionSuggestion: 'Ask for a shorter window', field: 'querystring.to' }]);
          }
        }
      }
      return out.sort((a, b) => a.occurrence.start - b.occurrence.start || a.entry.entry_uuid.localeCompare(b.entry.entry_uuid));
    },

    /** The calendar, its live events and their attendees' e-mails (the iCalendar export). */
    async forExport(tenant: string, reader: CalendarReader, calendarUuid: string) {
      const cal = await calendar(tenant, reader, calendarUuid);
      const entries = await liveCalendarEntries(db, tenant, calendarUuid);
      return { calendar: cal, entries, emails: await emailsOf(db, [...new Set(entries.flatMap((e) => e.attendees))]) };
    },
  };
}
export type CalendarsService = ReturnType<typeof makeCalendarsService>;

export const seriesOf = (row: CalendarEntryRow) => ({ start: row.start_wall, end: row.end_wall, timeZone: row.time_zone, recurrence: row.recurrence, overrides: row.overrides });
