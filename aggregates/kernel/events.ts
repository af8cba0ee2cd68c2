import { z } from 'zod';

/** Who, why and when: carried by every event, set by the shell, never by a decider. */
export const eventMetadataSchema = z.object({
  tenant: z.string(),
  userUuid: z.string().nullable(),
  requestId: z.string(),
  correlationId: z.string(),
  causationId: z.string().nullable(),
  occurredAt: z.number().int(),
  schemaVersion: z.number().int(),
  /** Set when an app's function wrote it: the app, and its installation (stream) in the tenant (docs/apps.md, "Functions"). */
  app: z.object({ appUuid: z.string(), installation: z.string() }).optional(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

/** An event as a decider emits it: a past-tense type, a schema version and its data. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  version: number;
  data: Data;
}

/** An event as the store holds it. `checkpoint` is opaque and orders the global log. */
export interface StoredEvent<E extends DomainEvent = DomainEvent> {
  type: E['type'];
  version: number;
  data: E['data'];
  metadata: EventMetadata;
  tenant: string;
  streamId: string;
  revision: number;
  position: number;
  checkpoint: string;
}
