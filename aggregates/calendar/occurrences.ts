import rrulePkg from 'rrule';
import { DateTime, IANAZone } from 'luxon';

/**
 * Times of calendar events (issue 39), pure: no clock, no I/O. An event keeps its start and end as
 * wall-clock times ("2026-03-16T09:00:00") in its IANA time zone, so a weekly 09:00 meeting stays
 * at 09:00 across a daylight-saving change. Recurrences (RFC 5545 RRULE, the `rrule` library) are
 * expanded in "floating" time (the wall clock read as if it were UTC, which has no DST) and each
 * occurrence is then placed in its zone.
 */

const { rrulestr, RRule } = rrulePkg;

/** A wall-clock time, seconds included: what the read model and the events keep. */
export const WALL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
/** An occurrence's id: the wall-clock start of the series occurrence in iCalendar's basic form (RECURRENCE-ID). */
export const OCCURRENCE_ID = /^\d{8}T\d{6}$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_INPUT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;
const OFFSET_INPUT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The longest window one expansion may cover, and the most occurrences it may return. */
export const MAX_WINDOW_DAYS = 366;
export const MAX_OCCURRENCES = 5000;
/** A series may not repeat more often than hourly (MINUTELY and SECONDLY would be millions a year). */
const DENSEST = RRule.HOURLY;

export const isTimeZone = (zone: string) => zone.length <= 64 && IANAZone.isValidZone(zone);

/**
 * A time the caller sent, as the wall-clock time in `zone`: a date ("2026-03-16", midnight), a
 * wall-clock time ("2026-03-16T09:00"), or an instant with an offset or Z, read in `zone`. Null
 * when it is none of these or names no real time.
 */
export function wallTimeOf(input: string, zone: string): string | null {
  let dt: DateTime;
  if (DATE_ONLY.test(input) || LOCAL_INPUT.test(input)) dt = DateTime.fromISO(input, { zone: 'UTC' });
  else if (OFFSET_INPUT.test(input)) dt = DateTime.fromISO(input, { setZone: true }).setZone(zone);
  else return null;
  if (!dt.isValid) return null;
  return dt.toFormat("yyyy-MM-dd'T'HH:mm:ss");
}

/** The instant (ms since the epoch) of a wall-clock time in `zone`. A time skipped by a DST change moves forward, as RFC 5545 says. */
export const instantOf = (wall: string, zone: string): number => DateTime.fromISO(wall, { zone }).toMillis();
/** The same wall-clock time read as UTC: how recurrences are expanded. */
const floating = (wall: string) => new Date(`${wall}Z`);
const wallOfFloating = (d: Date) => d.toISOString().slice(0, 19);
/** ISO 8601 with the zone's offset at that instant ("2026-03-30T09:00:00.000+02:00"). */
export const isoIn = (ms: number, zone: string) => DateTime.fromMillis(ms, { zone }).toISO()!;

export const occurrenceIdOf = (wall: string) => wall.replace(/[-:]/g, '');
export const wallOfOccurrenceId = (id: string) => `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(9, 11)}:${id.slice(11, 13)}:${id.slice(13, 15)}`;

/**
 * A recurrence rule checked: its text without a leading "RRULE:", or the reason it is refused. The
 * rule may not carry its own DTSTART (the event's start is the series' start).
 */
export function checkedRule(text: string): { rule: string } | { problem: string } {
  const rule = text.trim().replace(/^RRULE:/i, '');
  if (!rule || rule.length > 500 || /[\r\n]/.test(rule) || /DTSTART|EXDATE|RDATE/i.test(rule)) return { problem: 'is not one RRULE value (e.g. FREQ=WEEKLY;BYDAY=MO)' };
  try {
    const options = RRule.parseString(rule);
    if (options.freq === undefined) return { problem: 'has no FREQ' };
    if (options.freq > DENSEST) return { problem: 'repeats more often than hourly' };
    if (options.count !== undefined && options.count !== null && (options.count < 1 || options.count > 10_000)) return { problem: 'COUNT must be 1 to 10000' };
    new RRule({ ...options, dtstart: new Date(0) }).after(new Date(0), true);
  } catch {
    return { problem: 'is not a valid RFC 5545 RRULE' };
  }
  return { rule };
}

/** What expansion needs of an event. */
export interface Series {
  start: string;
  end: string;
  timeZone: string;
  recurrence: string | null;
  overrides: Readonly<Record<string, Override>>;
}

/** One occurrence changed (a new start or end, other texts) or cancelled. */
export type Override = { cancelled: true } | { cancelled?: false; start?: string; end?: string; title?: string; description?: string; location?: string };

/** The series' occurrences' wall-clock starts between two floating dates (inclusive). */
function seriesStarts(series: Pick<Series, 'start' | 'recurrence'>, from: Date, to: Date): string[] {
  if (!series.recurrence) {
    const t = floating(series.start);
    return t >= from && t <= to ? [series.start] : [];
  }
  return rrulestr(series.recurrence, { dtstart: floating(series.start) }).between(from, to, true).map(wallOfFloating);
}

/** Whether `id` names an occurrence of the series (changes are made to real occurrences only). */
export function isOccurrence(series: Pick<Series, 'start' | 'recurrence'>, id: string): boolean {
  if (!OCCURRENCE_ID.test(id)) return false;
  const wall = wallOfOccurrenceId(id);
  const t = floating(wall);
  if (Number.isNaN(t.getTime())) return false;
  return seriesStarts(series, t, t).includes(wall);
}

export interface Occurrence {
  occurrenceId: string;
  /** Instants, ms. */
  start: number;
  end: number;
  /** Wall-clock times in the event's zone. */
  startWall: string;
  endWall: string;
  override: Exclude<Override, { cancelled: true }> | null;
}

const DAY = 86_400_000;

/**
 * The occurrences of one series that overlap [fromMs, toMs): recurrences expanded, cancelled ones
 * left out, changed ones at their new times (wherever their series occurrence was). A changed
 * occurrence keeps the series' duration unless it names its own end.
 */
export function occurrencesBetween(series: Series, fromMs: number, toMs: number): Occurrence[] {
  const length = floating(series.end).getTime() - floating(series.start).getTime();
  const zone = series.timeZone;
  const place = (id: string, startWall: string, endWall: string, override: Occurrence['override']): Occurrence => ({
    occurrenceId: id, start: instantOf(startWall, zone), end: instantOf(endWall, zone), startWall, endWall, override,
  });
  const out: Occurrence[] = [];
  // The window in floating time, widened by a day each side (no zone is more than 14 h off UTC) and by the duration.
  const from = new Date(fromMs - DAY - length);
  const to = new Date(toMs + DAY);
  for (const startWall of seriesStarts(series, from, to)) {
    const id = occurrenceIdOf(startWall);
    if (series.overrides[id]) continue;
    out.push(place(id, startWall, wallOfFloating(new Date(floating(startWall).getTime() + length)), null));
  }
  for (const [id, override] of Object.entries(series.overrides)) {
    if (override.cancelled) continue;
    const startWall = override.start ?? wallOfOccurrenceId(id);
    const endWall = override.end ?? wallOfFloating(new Date(floating(startWall).getTime() + length));
    out.push(place(id, startWall, endWall, override));
  }
  return out.filter((o) => o.start < toMs && o.end > fromMs).sort((a, b) => a.start - b.start || a.occurrenceId.localeCompare(b.occurrenceId));
}

/**
 * The instants the series can touch, for the read model's window index: from its first start to
 * its last end (null: it repeats without end). Changed occurrences widen it.
 */
export function spanOf(series: Series): { first: number; last: number | null } {
  const length = floating(series.end).getTime() - floating(series.start).getTime();
  const zone = series.timeZone;
  let first = instantOf(series.start, zone);
  let last: number | null = instantOf(series.end, zone);
  if (series.recurrence) {
    const rule = rrulestr(series.recurrence, { dtstart: floating(series.start) });
    const bounded = rule.options.count !== null || rule.options.until !== null;
    const lastStart = bounded ? rule.before(new Date(8.64e15), true) : null;
    last = lastStart ? instantOf(wallOfFloating(new Date(lastStart.getTime() + length)), zone) : null;
  }
  for (const [id, o] of Object.entries(series.overrides)) {
    if (o.cancelled) continue;
    const startWall = o.start ?? wallOfOccurrenceId(id);
    const endWall = o.end ?? wallOfFloating(new Date(floating(startWall).getTime() + length));
    first = Math.min(first, instantOf(startWall, zone));
    if (last !== null) last = Math.max(last, instantOf(endWall, zone));
  }
  return { first, last };
}

/** Whether `end` comes after `start` (wall-clock times of one zone). */
export const endsAfter = (start: string, end: string) => floating(end).getTime() > floating(start).getTime();
