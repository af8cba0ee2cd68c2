import { z } from 'zod';

const uuid = z.string().uuid();
const edgeValues = z.record(z.string(), z.unknown());

/** Two records connected through a relation (the webhook topic RelationCreated of spec 6 fires on this). */
export const recordsConnected = z.object({
  type: z.literal('RecordsConnected'),
  version: z.literal(1),
  data: z.object({ relationUuid: uuid, fromRecordUuid: uuid, toRecordUuid: uuid, edgeProperties: edgeValues }),
});
export const recordLinkUpdated = z.object({ type: z.literal('RecordLinkUpdated'), version: z.literal(1), data: z.object({ edgeProperties: edgeValues }) });
export const recordsDisconnected = z.object({
  type: z.literal('RecordsDisconnected'),
  version: z.literal(1),
  data: z.object({ relationUuid: uuid, fromRecordUuid: uuid, toRecordUuid: uuid }),
});

export const recordLinkEventSchema = z.discriminatedUnion('type', [recordsConnected, recordLinkUpdated, recordsDisconnected]);
export type RecordLinkEvent = z.infer<typeof recordLinkEventSchema>;
export const recordLinkEventTypes = recordLinkEventSchema.options.map((o) => o.shape.type.value);

/** One stream per connection (relation, from record, to record): connecting never contends on a hot stream. */
export const RECORD_LINK_STREAM_PREFIX = 'link-';
export const recordLinkStream = (relationUuid: string, fromRecordUuid: string, toRecordUuid: string) => `${RECORD_LINK_STREAM_PREFIX}${relationUuid}-${fromRecordUuid}-${toRecordUuid}`;

const UUID_LENGTH = 36;
/** `link-<relation>-<from>-<to>` -> its three uuids (the inverse of `recordLinkStream`). */
export function recordLinkOfStream(streamId: string) {
  const rest = streamId.slice(RECORD_LINK_STREAM_PREFIX.length);
  return { relationUuid: rest.slice(0, UUID_LENGTH), fromRecordUuid: rest.slice(UUID_LENGTH + 1, 2 * UUID_LENGTH + 1), toRecordUuid: rest.slice(2 * UUID_LENGTH + 2) };
}
