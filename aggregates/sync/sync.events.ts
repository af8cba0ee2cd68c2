import { z } from 'zod';

const uuid = z.string().uuid();

/** One mapped pair: the source record's `source` property is copied to the target records' `target` property. */
export const syncMappingSchema = z.object({ source: z.string(), target: z.string() });
export type SyncMapping = z.infer<typeof syncMappingSchema>;

export const syncSettingsSchema = z.object({
  name: z.string(),
  label: z.string(),
  sourceObjectUuid: uuid,
  sourceObjectName: z.string(),
  targetObjectUuid: uuid,
  targetObjectName: z.string(),
  relationUuid: uuid,
  mappings: z.array(syncMappingSchema),
  enabled: z.boolean(),
});
export type SyncSettings = z.infer<typeof syncSettingsSchema>;

export const syncCreated = z.object({ type: z.literal('SyncCreated'), version: z.literal(1), data: syncSettingsSchema.extend({ syncUuid: uuid }) });
export const syncUpdated = z.object({ type: z.literal('SyncUpdated'), version: z.literal(1), data: z.object({ changes: syncSettingsSchema.partial() }) });
export const syncDeleted = z.object({ type: z.literal('SyncDeleted'), version: z.literal(1), data: z.object({ syncUuid: uuid }) });
export const syncRestored = z.object({ type: z.literal('SyncRestored'), version: z.literal(1), data: z.object({ syncUuid: uuid }) });

export const syncEventSchema = z.discriminatedUnion('type', [syncCreated, syncUpdated, syncDeleted, syncRestored]);
export type SyncEvent = z.infer<typeof syncEventSchema>;
export const syncEventTypes = syncEventSchema.options.map((o) => o.shape.type.value);

export const SYNC_STREAM_PREFIX = 'sync-';
export const syncStream = (syncUuid: string) => `${SYNC_STREAM_PREFIX}${syncUuid}`;
/** The uuid a sync stream is named by (the inverse of `syncStream`). */
export const syncUuidOfStream = (streamId: string) => streamId.slice(SYNC_STREAM_PREFIX.length);
