import { z } from 'zod';

const uuid = z.string().uuid();

/** A calendar: owned by one member of the company, readable by the members of the teams it is shared with. */
export const calendarSettingsSchema = z.object({
  name: z.string(),
  description: z.string(),
  timeZone: z.string(),
  color: z.string().nullable(),
  teamUuids: z.array(uuid),
});
export type CalendarSettings = z.infer<typeof calendarSettingsSchema>;

export const calendarCreated = z.object({ type: z.literal('CalendarCreated'), version: z.literal(1), data: calendarSettingsSchema.extend({ calendarUuid: uuid, ownerUuid: uuid }) });
export const calendarUpdated = z.object({ type: z.literal('CalendarUpdated'), version: z.literal(1), data: z.object({ changes: calendarSettingsSchema.extend({ ownerUuid: uuid }).partial() }) });
export const calendarDeleted = z.object({ type: z.literal('CalendarDeleted'), version: z.literal(1), data: z.object({ calendarUuid: uuid }) });
export const calendarRestored = z.object({ type: z.literal('CalendarRestored'), version: z.literal(1), data: z.object({ calendarUuid: uuid }) });

export const calendarEventSchema = z.discriminatedUnion('type', [calendarCreated, calendarUpdated, calendarDeleted, calendarRestored]);
export type CalendarEvent = z.infer<typeof calendarEventSchema>;
export const calendarEventTypes = calendarEventSchema.options.map((o) => o.shape.type.value);

export const CALENDAR_STREAM_PREFIX = 'calendar-';
export const calendarStream = (calendarUuid: string) => `${CALENDAR_STREAM_PREFIX}${calendarUuid}`;
/** The uuid a calendar stream is named by (the inverse of `calendarStream`). */
export const calendarUuidOfStream = (streamId: string) => streamId.slice(CALENDAR_STREAM_PREFIX.length);
