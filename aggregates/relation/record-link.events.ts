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
export const recordLinkStream = (relationUuid: string, fromRecordUuid: string, toRecordUuid: string) => `link-${relationUuid}-${fromRecordUuid}-${toRecordUuid}`;
