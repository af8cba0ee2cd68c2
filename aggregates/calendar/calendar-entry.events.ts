import { z } from 'zod';

const uuid = z.string().uuid();

/**
 * An event of a calendar (a meeting, an appointment): "entry" in the code, so it is never confused
 * with the domain events of the log; `events` in the API. Times are wall-clock times in `timeZone`
 * (occurrences.ts); `recurrence` is an RFC 5545 RRULE or null.
 */
export const entrySettingsSchema = z.object({
  title: z.string(),
  description: z.string(),
  location: z.string(),
  start: z.string(),
  end: z.string(),
  timeZone: z.string(),
  allDay: z.boolean(),
  attendees: z.array(uuid),
  recurrence: z.string().nullable(),
});
export type EntrySettings = z.infer<typeof entrySettingsSchema>;

/** What one occurrence changes of its series (a changed occurrence; a cancelled one is its own event). */
export const occurrenceChangesSchema = z.object({
  start: z.string().optional(),
  end: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  location: z.string().optional(),
});
export type OccurrenceChanges = z.infer<typeof occurrenceChangesSchema>;

export const entryScheduled = z.object({ type: z.literal('CalendarEntryScheduled'), version: z.literal(1), data: entrySettingsSchema.extend({ entryUuid: uuid, calendarUuid: uuid }) });
/** `droppedOccurrences`: changed or cancelled occurrences that are no longer occurrences of the changed series. */
export const entryChanged = z.object({
  type: z.literal('CalendarEntryChanged'),
  version: z.literal(1),
  data: z.object({ changes: entrySettingsSchema.partial(), droppedOccurrences: z.array(z.string()) }),
});
export const entryDeleted = z.object({ type: z.literal('CalendarEntryDeleted'), version: z.literal(1), data: z.object({ entryUuid: uuid }) });
export const entryRestored = z.object({ type: z.literal('CalendarEntryRestored'), version: z.literal(1), data: z.object({ entryUuid: uuid }) });
export const occurrenceChanged = z.object({ type: z.literal('CalendarOccurrenceChanged'), version: z.literal(1), data: z.object({ occurrenceId: z.string(), changes: occurrenceChangesSchema }) });
export const occurrenceCancelled = z.object({ type: z.literal('CalendarOccurrenceCancelled'), version: z.literal(1), data: z.object({ occurrenceId: z.string() }) });
export const occurrenceReset = z.object({ type: z.literal('CalendarOccurrenceReset'), version: z.literal(1), data: z.object({ occurrenceId: z.string() }) });

export const entryEventSchema = z.discriminatedUnion('type', [entryScheduled, entryChanged, entryDeleted, entryRestored, occurrenceChanged, occurrenceCancelled, occurrenceReset]);
export type EntryEvent = z.infer<typeof entryEventSchema>;
export const entryEventTypes = entryEventSchema.options.map((o) => o.shape.type.value);

export const CALENDAR_ENTRY_STREAM_PREFIX = 'calentry-';
export const calendarEntryStream = (entryUuid: string) => `${CALENDAR_ENTRY_STREAM_PREFIX}${entryUuid}`;
/** The uuid a calendar entry stream is named by (the inverse of `calendarEntryStream`). */
export const calendarEntryUuidOfStream = (streamId: string) => streamId.slice(CALENDAR_ENTRY_STREAM_PREFIX.length);
