import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { calendarDecider, type CalendarFacts } from '../../aggregates/calendar/calendar.decider.js';
import { calendarEventSchema } from '../../aggregates/calendar/calendar.events.js';
import { calendarEntryDecider, type EntryFacts } from '../../aggregates/calendar/calendar-entry.decider.js';
import { entryEventSchema, type EntryEvent } from '../../aggregates/calendar/calendar-entry.events.js';
import { occurrencesBetween, spanOf, type Override, type Series } from '../../aggregates/calendar/occurrences.js';
import { given } from '../support/decider-spec.js';

const OWNER = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const CAL = '00000000-0000-4000-8000-0000000000ca';
const E = '00000000-0000-4000-8000-0000000000e1';
const owner: CalendarFacts = { caller: { userUuid: OWNER, admin: false }, teams: {} };
const entryFacts = (userUuid = OWNER, admin = false): EntryFacts => ({ caller: { userUuid, admin }, calendar: { uuid: CAL, ownerUuid: OWNER, timeZone: 'Europe/Paris' }, members: { [OWNER]: true } });
const schema = { schema: calendarEventSchema };
const entrySchema = { schema: entryEventSchema };
const scheduled = (): EntryEvent =>
  given(calendarEntryDecider, [], entrySchema).when({ type: 'ScheduleEntry', entryUuid: E, input: { title: 'Planning', start: '2026-03-16T09:00', recurrence: 'RRULE:FREQ=WEEKLY;COUNT=4' }, facts: entryFacts() }).events()[0]!;

describe('calendar decider', () => {
  it('a calendar is owned by its creator; only the owner or an admin changes it', () => {
    const created = given(calendarDecider, [], schema).when({ type: 'CreateCalendar', calendarUuid: CAL, input: { name: ' Team ' }, facts: owner }).events()[0]!;
    expect(created).toEqual({ type: 'CalendarCreated', version: 1, data: { calendarUuid: CAL, ownerUuid: OWNER, name: 'Team', description: '', timeZone: 'UTC', color: null, teamUuids: [] } });
    given(calendarDecider, [created], schema).when({ type: 'UpdateCalendar', input: { name: 'x' }, facts: { ...owner, caller: { userUuid: OTHER, admin: false } } }).thenFails('FORBIDDEN', 'owner');
    given(calendarDecider, [created], schema).when({ type: 'UpdateCalendar', input: { name: 'x' }, facts: { ...owner, caller: { userUuid: OTHER, admin: true } } }).then([
      { type: 'CalendarUpdated', version: 1, data: { changes: { name: 'x' } } },
    ]);
    given(calendarDecider, [created], schema).when({ type: 'UpdateCalendar', input: { name: 'Team' }, facts: owner }).then([]);
    given(calendarDecider, [created], schema).when({ type: 'RestoreCalendar', facts: owner }).thenFails('STATE_NOT_ALLOWED', 'Only a deleted calendar can be restored');
  });
});

describe('calendar entry decider', () => {
  it('schedules a series with its defaults: the calendar zone, an hour, the rule without its prefix', () => {
    expect(scheduled().data).toMatchObject({ start: '2026-03-16T09:00:00', end: '2026-03-16T10:00:00', timeZone: 'Europe/Paris', recurrence: 'FREQ=WEEKLY;COUNT=4', allDay: false, attendees: [] });
  });

  it('an instant with an offset is read as the wall clock of the zone', () => {
    const e = given(calendarEntryDecider, [], entrySchema).when({ type: 'ScheduleEntry', entryUuid: E, input: { title: 'x', start: '2026-07-01T07:00:00Z', end: '2026-07-01T08:30:00Z' }, facts: entryFacts() }).events()[0]!;
    expect(e.data).toMatchObject({ start: '2026-07-01T09:00:00', end: '2026-07-01T10:30:00' });
  });

  it('changes, cancels and resets one occurrence; only real occurrences; repeats change nothing', () => {
    const s = scheduled();
    const cancel = { type: 'CancelOccurrence', occurrenceId: '20260323T090000', facts: entryFacts() } as const;
    given(calendarEntryDecider, [s], entrySchema).when(cancel).then([{ type: 'CalendarOccurrenceCancelled', version: 1, data: { occurrenceId: '20260323T090000' } }]);
    const cancelled: EntryEvent = { type: 'CalendarOccurrenceCancelled', version: 1, data: { occurrenceId: '20260323T090000' } };
    given(calendarEntryDecider, [s, cancelled], entrySchema).when(cancel).then([]);
    given(calendarEntryDecider, [s], entrySchema).when({ ...cancel, occurrenceId: '20260324T090000' }).thenFails('NOT_FOUND', 'not an occurrence');
    given(calendarEntryDecider, [s], entrySchema).when({ ...cancel, occurrenceId: '20260413T090000' }).thenFails('NOT_FOUND');
    given(calendarEntryDecider, [s], entrySchema).when({ type: 'ResetOccurrence', occurrenceId: '20260323T090000', facts: entryFacts() }).then([]);
    given(calendarEntryDecider, [s], entrySchema).when({ type: 'ChangeOccurrence', occurrenceId: '20260330T090000', input: { start: '2026-03-30T08:00', end: '2026-03-30T07:00' }, facts: entryFacts() }).thenFails('VALIDATION_FAILED', 'end must come after start');
    given(calendarEntryDecider, [s], entrySchema).when({ type: 'ChangeOccurrence', occurrenceId: '20260330T090000', input: { title: 'Other' }, facts: entryFacts(OTHER) }).thenFails('FORBIDDEN');
  });
});

/** Random weekly or daily series in a few zones, with some occurrences cancelled or moved. */
const seriesArb: fc.Arbitrary<Series> = fc
  .record({
    zone: fc.constantFrom('Europe/Paris', 'America/New_York', 'Australia/Sydney', 'UTC', 'Asia/Kolkata'),
    day: fc.integer({ min: 0, max: 364 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minutes: fc.integer({ min: 15, max: 600 }),
    rule: fc.constantFrom('FREQ=WEEKLY;COUNT=30', 'FREQ=DAILY;COUNT=40', 'FREQ=WEEKLY;BYDAY=MO,TH', 'FREQ=MONTHLY;BYMONTHDAY=15;COUNT=12', null),
    cancel: fc.array(fc.integer({ min: 0, max: 25 }), { maxLength: 3 }),
    move: fc.array(fc.record({ n: fc.integer({ min: 0, max: 25 }), shiftHours: fc.integer({ min: -72, max: 72 }) }), { maxLength: 3 }),
  })
  .map(({ zone, day, hour, minutes, rule, cancel, move }) => {
    const start = new Date(Date.UTC(2026, 0, 1 + day, hour)).toISOString().slice(0, 19);
    const end = new Date(Date.UTC(2026, 0, 1 + day, hour) + minutes * 60_000).toISOString().slice(0, 19);
    const bare: Series = { start, end, timeZone: zone, recurrence: rule, overrides: {} };
    const all = occurrencesBetween(bare, Date.UTC(2025, 11, 1), Date.UTC(2029, 0, 1));
    const overrides: Record<string, Override> = {};
    for (const n of cancel) if (all[n]) overrides[all[n]!.occurrenceId] = { cancelled: true };
    for (const { n, shiftHours } of move) {
      const o = all[n];
      if (o) overrides[o.occurrenceId] = { start: new Date(Date.parse(`${o.startWall}Z`) + shiftHours * 3_600_000).toISOString().slice(0, 19) };
    }
    return { ...bare, overrides };
  });

describe('occurrence expansion (fast-check)', () => {
  it('a window split in two finds what the whole window finds, and every occurrence lies in the span', () => {
    fc.assert(
      fc.property(seriesArb, fc.integer({ min: 0, max: 700 }), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 200 }), (series, startDay, a, b) => {
        const from = Date.UTC(2026, 0, 1) + startDay * 86_400_000 - 30 * 86_400_000;
        const mid = from + a * 86_400_000 + 3_600_000 * (a % 24);
        const to = mid + b * 86_400_000;
        const key = (o: { occurrenceId: string; start: number; end: number }) => `${o.occurrenceId}@${o.start}-${o.end}`;
        const whole = occurrencesBetween(series, from, to).map(key);
        const split = [...new Set([...occurrencesBetween(series, from, mid), ...occurrencesBetween(series, mid, to)].map(key))];
        expect(split.sort()).toEqual([...whole].sort());
        const span = spanOf(series);
        for (const o of occurrencesBetween(series, from, to)) {
          expect(o.start).toBeGreaterThanOrEqual(span.first);
          if (span.last !== null) expect(o.end).toBeLessThanOrEqual(span.last);
          expect(o.end).toBeGreaterThan(o.start);
          if (!o.override) expect(o.startWall.slice(11)).toBe(series.start.slice(11));
        }
      }),
      { numRuns: 200 },
    );
  });
});
