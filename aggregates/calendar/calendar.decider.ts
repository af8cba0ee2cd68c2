import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { problems } from '../kernel/problems.js';
import type { CalendarEvent, CalendarSettings } from './calendar.events.js';
import { isTimeZone } from './occurrences.js';

/** Who asks, and what the handler found: whether the named teams and the new owner are the company's. */
export interface CalendarFacts {
  caller: { userUuid: string; admin: boolean };
  /** Team uuid -> whether it is a team of the company. */
  teams: Readonly<Record<string, boolean>>;
  /** Whether the requested new owner is a member of the company (undefined: no owner change asked). */
  ownerIsMember?: boolean;
}

export interface CalendarInput {
  name?: string;
  description?: string;
  timeZone?: string;
  color?: string | null;
  teamUuids?: string[];
  ownerUuid?: string;
}

export type CalendarCommand =
  | { type: 'CreateCalendar'; calendarUuid: string; input: CalendarInput; facts: CalendarFacts }
  | { type: 'UpdateCalendar'; input: CalendarInput; facts: CalendarFacts }
  | { type: 'DeleteCalendar'; facts: CalendarFacts }
  | { type: 'RestoreCalendar'; facts: CalendarFacts };

export interface CalendarState {
  exists: boolean;
  deleted: boolean;
  calendarUuid: string;
  ownerUuid: string;
  settings: CalendarSettings | null;
}

export const MAX_SHARED_TEAMS = 20;
const COLOR = /^#[0-9a-fA-F]{6}$/;

/** Only the owner and the company's admins change a calendar and its events; team members read it. */
export function mayChange(caller: CalendarFacts['caller'], ownerUuid: string) {
  if (caller.admin || caller.userUuid === ownerUuid) return;
  const message = 'Only the owner of the calendar or an admin of the company may change it';
  throw new DomainError('FORBIDDEN', message, [{ message, type: 'GENERAL', correctionSuggestion: "Ask the calendar's owner or an admin" }], { roles: ['ADMIN'], scopes: [] });
}

function settingsFrom(input: CalendarInput, facts: CalendarFacts, base: CalendarSettings | null): CalendarSettings {
  const p = problems();
  const name = (input.name ?? base?.name ?? '').trim();
  if (!name || name.length > 200) p.add('body.name', 'a calendar has a name of 1 to 200 characters', 'Send name, e.g. "Team meetings"', 'INVALID_VALUE');
  const timeZone = input.timeZone ?? base?.timeZone ?? 'UTC';
  if (!isTimeZone(timeZone)) p.add('body.timeZone', `${timeZone} is not an IANA time zone`, 'Send a zone such as Europe/Paris, America/New_York or UTC', 'INVALID_VALUE');
  const color = input.color === undefined ? (base?.color ?? null) : input.color;
  if (color !== null && !COLOR.test(color)) p.add('body.color', 'a color is #rrggbb', 'Send e.g. "#3366ff", or null', 'INVALID_VALUE');
  const teamUuids = [...new Set(input.teamUuids ?? base?.teamUuids ?? [])];
  if (teamUuids.length > MAX_SHARED_TEAMS) p.add('body.teamUuids', `a calendar is shared with at most ${MAX_SHARED_TEAMS} teams`, 'Share with fewer teams', 'INVALID_VALUE');
  // Only the teams the input names are checked: a team deleted since it was shared stays until the calendar's teams are sent again.
  (input.teamUuids ?? []).forEach((t, i) => {
    if (!facts.teams[t]) p.add(`body.teamUuids.${i}`, `team ${t} does not exist in the selected company`, 'Send uuids of the company\'s teams', 'NOT_FOUND');
  });
  if (facts.ownerIsMember === false) p.add('body.ownerUuid', 'the new owner is not a member of the company', "Send a member's user uuid", 'NOT_FOUND');
  p.throwIfAny('The calendar has several problems');
  return { name, description: (input.description ?? base?.description ?? '').trim().slice(0, 2000), timeZone, color, teamUuids };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const calendarDecider: Decider<CalendarState, CalendarCommand, CalendarEvent> = {
  initialState: () => ({ exists: false, deleted: false, calendarUuid: '', ownerUuid: '', settings: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateCalendar':
        if (state.exists) throw new DomainError('CONFLICT', 'calendar already exists', [{ message: 'A calendar with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        return [{ type: 'CalendarCreated', version: 1, data: { ...settingsFrom(command.input, command.facts, null), calendarUuid: command.calendarUuid, ownerUuid: command.facts.caller.userUuid } }];
      case 'UpdateCalendar': {
        if (!state.exists || state.deleted) throw notFound('Calendar', state.calendarUuid || 'requested');
        mayChange(command.facts.caller, state.ownerUuid);
        const next = { ...settingsFrom(command.input, command.facts, state.settings), ownerUuid: command.input.ownerUuid ?? state.ownerUuid };
        const before = { ...state.settings!, ownerUuid: state.ownerUuid };
        const changes = Object.fromEntries((Object.keys(next) as (keyof typeof next)[]).filter((k) => !same(next[k], before[k])).map((k) => [k, next[k]]));
        return Object.keys(changes).length === 0 ? [] : [{ type: 'CalendarUpdated', version: 1, data: { changes } }];
      }
      case 'DeleteCalendar':
        if (!state.exists || state.deleted) throw notFound('Calendar', state.calendarUuid || 'requested');
        mayChange(command.facts.caller, state.ownerUuid);
        return [{ type: 'CalendarDeleted', version: 1, data: { calendarUuid: state.calendarUuid } }];
      case 'RestoreCalendar':
        if (!state.exists) throw notFound('Calendar', 'requested');
        mayChange(command.facts.caller, state.ownerUuid);
        if (!state.deleted) {
          const message = `Calendar ${state.calendarUuid} is not deleted`;
          throw new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion: 'Only a deleted calendar can be restored' }]);
        }
        return [{ type: 'CalendarRestored', version: 1, data: { calendarUuid: state.calendarUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CalendarCreated': {
        const { calendarUuid, ownerUuid, ...settings } = event.data;
        return { exists: true, deleted: false, calendarUuid, ownerUuid, settings };
      }
      case 'CalendarUpdated': {
        const { ownerUuid, ...changes } = event.data.changes;
        return { ...state, ownerUuid: ownerUuid ?? state.ownerUuid, settings: { ...state.settings!, ...changes } };
      }
      case 'CalendarDeleted':
        return { ...state, deleted: true };
      case 'CalendarRestored':
        return { ...state, deleted: false };
    }
  },
};
