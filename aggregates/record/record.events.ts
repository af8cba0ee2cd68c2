import { z } from 'zod';

const uuid = z.string().uuid();
const values = z.record(z.string(), z.unknown());

/**
 * A record came to be. `properties` holds the normalised values (no nulls); `extends` the uuids
 * of further objects the record is also a record of (spec 1.4).
 */
export const recordCreated = z.object({
  type: z.literal('RecordCreated'),
  version: z.literal(1),
  data: z.object({ uuid, objectUuid: uuid, objectName: z.string(), properties: values, extends: z.array(uuid).optional() }),
});

/** Values changed: for each changed property its value before and after (null: no value). */
export const recordUpdated = z.object({
  type: z.literal('RecordUpdated'),
  version: z.literal(1),
  data: z.object({ uuid, objectName: z.string(), changes: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })) }),
});

/** Soft-deleted (DELETE with `mode`, default `archive`): the values stay and a restore brings them back. */
export const recordArchived = z.object({
  type: z.literal('RecordArchived'),
  version: z.literal(1),
  data: z.object({ uuid, objectName: z.string(), mode: z.string() }),
});

export const recordRestored = z.object({
  type: z.literal('RecordRestored'),
  version: z.literal(1),
  data: z.object({ uuid, objectName: z.string() }),
});

/** The record is now also a record of another object (its properties apply; it shows in that object's lists). */
export const recordExtended = z.object({
  type: z.literal('RecordExtended'),
  version: z.literal(1),
  data: z.object({ uuid, objectName: z.string(), extendedObjectUuid: uuid, extendedObjectName: z.string() }),
});

export const recordExtensionRemoved = z.object({
  type: z.literal('RecordExtensionRemoved'),
  version: z.literal(1),
  data: z.object({ uuid, objectName: z.string(), extendedObjectUuid: uuid, extendedObjectName: z.string() }),
});

/**
 * The record (of an object with the User trait) is the profile of a platform user of the company
 * (spec 1.6): `via` says whether its e-mail property named the user or a caller linked it.
 * A record is linked to one user at most and a user to one record of the company.
 */
export const recordUserLinked = z.object({
  type: z.literal('RecordUserLinked'),
  version: z.literal(1),
  data: z.object({ uuid, objectName: z.string(), userUuid: uuid, via: z.enum(['email', 'explicit']) }),
});

/** The link ended: a caller removed it, or the e-mail property changed to one of no member. */
export const recordUserUnlinked = z.object({
  type: z.literal('RecordUserUnlinked'),
  version: z.literal(1),
  data: z.object({ uuid, objectName: z.string(), userUuid: uuid, via: z.enum(['email', 'explicit']) }),
});

export const recordEventSchema = z.discriminatedUnion('type', [
  recordCreated, recordUpdated, recordArchived, recordRestored, recordExtended, recordExtensionRemoved, recordUserLinked, recordUserUnlinked,
]);
export type RecordEvent = z.infer<typeof recordEventSchema>;
export const recordEventTypes = recordEventSchema.options.map((o) => o.shape.type.value);

export const RECORD_STREAM_PREFIX = 'record-';
/** The stream of one record (the tenant is the store's tenant). */
export const recordStream = (recordUuid: string) => `${RECORD_STREAM_PREFIX}${recordUuid}`;
/** The record uuid a record stream is named by (the inverse of `recordStream`). */
export const recordUuidOfStream = (streamId: string) => streamId.slice(RECORD_STREAM_PREFIX.length);
