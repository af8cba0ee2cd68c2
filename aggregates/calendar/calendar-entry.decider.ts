import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { problems } from '../kernel/problems.js';
import { mayChange, type CalendarFacts } from './calendar.decider.js';
import type { EntryEvent, EntrySettings, OccurrenceChanges } from './calendar-entry.events.js';
import { checkedRule, endsAfter, isOccurrence, isTimeZone, wallOfOccurrenceId, wallTimeOf, type Override } from './occurrences.js';

/** The calendar an entry is written to, as the handler found it, and who asks. */
export interface EntryFacts {
  caller: CalendarFacts['caller'];
  calendar: { uuid: string; ownerUuid: string; timeZone: string };
  /** Attendee uuid -> whether that user is a member of the company. */
  members: Readonly<Record<string, boolean>>;
}

export interface EntryInput {
  title?: string;
  description?: string;
  location?: string;
  start?: string;
  end?: string;
  timeZone?: string;
  allDay?: boolean;
  attendees?: string[];
  recurrence?: string | null;
}

export type OccurrenceInput = { start?: string; end?: string; title?: string; description?: string; location?: string };

export type EntryCommand =
  | { type: 'ScheduleEntry'; entryUuid: string; input: EntryInput; facts: EntryFacts }
  | { type: 'ChangeEntry'; input: EntryInput; facts: EntryFacts }
  | { type: 'DeleteEntry'; facts: EntryFacts }
  | { type: 'RestoreEntry'; facts: EntryFacts }
  | { type: 'ChangeOccurrence'; occurrenceId: string; input: OccurrenceInput; facts: EntryFacts }
  | { type: 'CancelOccurrence'; occurrenceId: string; facts: EntryFacts }
  | { type: 'ResetOccurrence'; occurrenceId: string; facts: EntryFacts };

export interface EntryState {
  exists: boolean;
  deleted: boolean;
  entryUuid: string;
  calendarUuid: string;
  settings: EntrySettings | null;
  overrides: Record<string, Override>;
}

export const MAX_ATTENDEES = 100;
const MAX_LENGTH_MS = 366 * 86_400_000;
const HOUR = 3_600_000;

const shift = (wall: string, ms: number) => new Date(new Date(`${wall}Z`).getTime() + ms).toISOString().slice(0, 19);
const lengthOf = (s: { start: string; end: string }) => new Date(`${s.end}Z`).getTime() - new Date(`${s.start}Z`).getTime();

function settingsFrom(input: EntryInput, facts: EntryFacts, base: EntrySettings | null): EntrySettings {
  const p = problems();
  const title = (input.title ?? base?.title ?? '').trim();
  if (!title || title.length > 200) p.add('body.title', 'an event has a title of 1 to 200 characters', 'Send title, e.g. "Weekly planning"', 'INVALID_VALUE');
  const timeZone = input.timeZone ?? base?.timeZone ?? facts.calendar.timeZone;
  const zoneOk = isTimeZone(timeZone);
  if (!zoneOk) p.add('body.timeZone', `${timeZone} is not an IANA time zone`, 'Send a zone such as Europe/Paris, or leave it out for the calendar\'s zone', 'INVALID_VALUE');
  const allDay = input.allDay ?? base?.allDay ?? false;
  const at = (field: 'start' | 'end', raw: string | undefined) => {
    if (raw === undefined || !zoneOk) return undefined;
    const wall = wallTimeOf(raw, timeZone);
    if (!wall) p.add(`body.${field}`, `${field} "${raw}" is not a date or a date-time`, 'Send 2026-03-16T09:00 (wall clock in timeZone), 2026-03-16T08:00:00Z, or 2026-03-16 for an all-day event', 'INVALID_DATE');
    else if (allDay && !wall.endsWith('T00:00:00')) p.add(`body.${field}`, 'an all-day event starts and ends at midnight', 'Send dates (2026-03-16), the end being the day after the last day', 'INVALID_DATE');
    return wall ?? undefined;
  };
  if (!base && input.start === undefined) p.add('body.start', 'start is required', 'Send start, e.g. 2026-03-16T09:00');
  const start = at('start', input.start) ?? base?.start;
  let end = at('end', input.end) ?? (input.start !== undefined || !base ? undefined : base.end);
  if (start && !end) end = shift(start, allDay ? 24 * HOUR : base ? lengthOf(base) : HOUR);
  if (start && end && (!endsAfter(start, end) || lengthOf({ start, end }) > MAX_LENGTH_MS)) {
    p.add('body.end', 'end must come after start, at most 366 days later', 'Send an end after the start', 'INVALID_DATE');
  }
  let recurrence = input.recurrence === undefined ? (base?.recurrence ?? null) : input.recurrence;
  if (recurrence !== null) {
    const checked = checkedRule(recurrence);
    if ('problem' in checked) p.add('body.recurrence', `the recurrence ${checked.problem}`, 'Send an RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=MO;COUNT=10, or null', 'INVALID_VALUE');
    else recurrence = checked.rule;
  }
  const attendees = [...new Set(input.attendees ?? base?.attendees ?? [])];
  if (attendees.length > MAX_ATTENDEES) p.add('body.attendees', `an event has at most ${MAX_ATTENDEES} attendees`, 'Invite fewer members', 'INVALID_VALUE');
  attendees.forEach((a, i) => {
    if (!facts.members[a]) p.add(`body.attendees.${i}`, `user ${a} is not a member of the company`, "Send the user uuids of the company's members", 'NOT_FOUND');
  });
  const description = (input.description ?? base?.description ?? '').trim();
  if (description.length > 10_000) p.add('body.description', 'a description has at most 10000 characters', 'Shorten it', 'INVALID_VALUE');
  const location = (input.location ?? base?.location ?? '').trim();
  if (location.length > 500) p.add('body.location', 'a location has at most 500 characters', 'Shorten it', 'INVALID_VALUE');
  p.throwIfAny('The event has several problems');
  return { title, description, location, start: start!, end: end!, timeZone, allDay, attendees, recurrence };
}

function occurrenceChangesFrom(input: OccurrenceInput, series: EntrySettings, occurrenceId: string): OccurrenceChanges {
  const p = problems();
  const changes: OccurrenceChanges = {};
  for (const field of ['start', 'end'] as const) {
    const raw = input[field];
    if (raw === undefined) continue;
    const wall = wallTimeOf(raw, series.timeZone);
    if (!wall) p.add(`body.${field}`, `${field} "${raw}" is not a date or a date-time`, `Send a wall-clock time in ${series.timeZone}, e.g. 2026-03-16T10:00`, 'INVALID_DATE');
    else changes[field] = wall;
  }
  const start = changes.start ?? wallOfOccurrenceId(occurrenceId);
  const end = changes.end ?? shift(start, lengthOf(series));
  if (!endsAfter(start, end)) p.add('body.end', 'end must come after start', 'Send an end after the start', 'INVALID_DATE');
  for (const field of ['title', 'description', 'location'] as const) {
    const text = input[field]?.trim();
    if (text === undefined) continue;
    if ((field === 'title' && !text) || text.length > (field === 'description' ? 10_000 : field === 'location' ? 500 : 200)) p.add(`body.${field}`, `${field} is empty or too long`, `Send a shorter ${field}`, 'INVALID_VALUE');
    else changes[field] = text;
  }
  p.throwIfAny('The occurrence has several problems');
  if (Object.keys(changes).length === 0) throw new DomainError('VALIDATION_FAILED', 'nothing to change', [{ message: 'The body changes nothing of the occurrence', type: 'VALIDATION', correctionSuggestion: 'Send start, end, title, description or location' }]);
  return changes;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function live(state: EntryState) {
  if (!state.exists || state.deleted) throw notFound('Event', state.entryUuid || 'requested');
  return state.settings!;
}

function occurrenceOf(state: EntryState, occurrenceId: string) {
  const series = live(state);
  if (!isOccurrence(series, occurrenceId)) {
    throw new DomainError('NOT_FOUND', `Occurrence ${occurrenceId} not found`, [
      { message: `${occurrenceId} is not an occurrence of event ${state.entryUuid}`, type: 'NOT_FOUND', correctionSuggestion: "Use an occurrenceId of the calendar's occurrences (the wall-clock start of the series occurrence, e.g. 20260316T090000)" },
    ]);
  }
  return series;
}

export const calendarEntryDecider: Decider<EntryState, EntryCommand, EntryEvent> = {
  initialState: () => ({ exists: false, deleted: false, entryUuid: '', calendarUuid: '', settings: null, overrides: {} }),
  decide(command, state) {
    const facts = command.facts;
    mayChange(facts.caller, facts.calendar.ownerUuid);
    switch (command.type) {
      case 'ScheduleEntry':
        if (state.exists) throw new DomainError('CONFLICT', 'event already exists', [{ message: 'An event with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        return [{ type: 'CalendarEntryScheduled', version: 1, data: { ...settingsFrom(command.input, facts, null), entryUuid: command.entryUuid, calendarUuid: facts.calendar.uuid } }];
      case 'ChangeEntry': {
        const base = live(state);
        const next = settingsFrom(command.input, facts, base);
        const changes = Object.fromEntries((Object.keys(next) as (keyof EntrySettings)[]).filter((k) => !same(next[k], base[k])).map((k) => [k, next[k]]));
        if (Object.keys(changes).length === 0) return [];
        const droppedOccurrences = Object.keys(state.overrides).filter((id) => !isOccurrence(next, id));
        return [{ type: 'CalendarEntryChanged', version: 1, data: { changes, droppedOccurrences } }];
      }
      case 'DeleteEntry':
        live(state);
        return [{ type: 'CalendarEntryDeleted', version: 1, data: { entryUuid: state.entryUuid } }];
      case 'RestoreEntry':
        if (!state.exists) throw notFound('Event', 'requested');
        if (!state.deleted) {
          const message = `Event ${state.entryUuid} is not deleted`;
          throw new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion: 'Only a deleted event can be restored' }]);
        }
        return [{ type: 'CalendarEntryRestored', version: 1, data: { entryUuid: state.entryUuid } }];
      case 'ChangeOccurrence': {
        const series = occurrenceOf(state, command.occurrenceId);
        const changes = occurrenceChangesFrom(command.input, series, command.occurrenceId);
        const current = state.overrides[command.occurrenceId];
        if (current && !current.cancelled && same({ ...current, cancelled: undefined }, { ...changes, cancelled: undefined })) return [];
        return [{ type: 'CalendarOccurrenceChanged', version: 1, data: { occurrenceId: command.occurrenceId, changes } }];
      }
      case 'CancelOccurrence':
        occurrenceOf(state, command.occurrenceId);
        return state.overrides[command.occurrenceId]?.cancelled ? [] : [{ type: 'CalendarOccurrenceCancelled', version: 1, data: { occurrenceId: command.occurrenceId } }];
      case 'ResetOccurrence':
        occurrenceOf(state, command.occurrenceId);
        return state.overrides[command.occurrenceId] ? [{ type: 'CalendarOccurrenceReset', version: 1, data: { occurrenceId: command.occurrenceId } }] : [];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CalendarEntryScheduled': {
        const { entryUuid, calendarUuid, ...settings } = event.data;
        return { exists: true, deleted: false, entryUuid, calendarUuid, settings, overrides: {} };
      }
      case 'CalendarEntryChanged': {
        const overrides = { ...state.overrides };
        for (const id of event.data.droppedOccurrences) delete overrides[id];
        return { ...state, settings: { ...state.settings!, ...event.data.changes }, overrides };
      }
      case 'CalendarEntryDeleted':
        return { ...state, deleted: true };
      case 'CalendarEntryRestored':
        return { ...state, deleted: false };
      case 'CalendarOccurrenceChanged':
        return { ...state, overrides: { ...state.overrides, [event.data.occurrenceId]: event.data.changes } };
      case 'CalendarOccurrenceCancelled':
        return { ...state, overrides: { ...state.overrides, [event.data.occurrenceId]: { cancelled: true } } };
      case 'CalendarOccurrenceReset': {
        const { [event.data.occurrenceId]: _gone, ...overrides } = state.overrides;
        return { ...state, overrides };
      }
    }
  },
};

/** The overrides after one event, for the projection (the same rule as `evolve`). */
export function overridesAfter(overrides: Record<string, Override>, event: EntryEvent): Record<string, Override> {
  return calendarEntryDecider.evolve({ exists: true, deleted: false, entryUuid: '', calendarUuid: '', settings: null, overrides }, event).overrides;
}
