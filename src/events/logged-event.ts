import { z } from 'zod';
import type { EventLogRow } from '../../read-models/event-log.queries.js';

/** An event as the company event log shows it (POST events/index) and the live feed sends it. */
export const loggedEventSchema = z
  .object({
    position: z.number().int(),
    tenant: z.string(),
    streamId: z.string(),
    revision: z.number().int(),
    type: z.string(),
    version: z.number().int(),
    occurredAt: z.number().int(),
    userUuid: z.string().nullable(),
    requestId: z.string(),
    correlationId: z.string(),
    causationId: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'LoggedEvent' });
export type LoggedEvent = z.infer<typeof loggedEventSchema>;

/**
 * The one rendering of a logged event. The log holds no secret in clear (webhook secrets are kept
 * apart, app secrets and tokens are ciphertext, passwords hashes: docs/events.md), so `data` is
 * shown as stored.
 */
export function loggedEvent(r: EventLogRow): LoggedEvent {
  return {
    position: Number(r.position),
    tenant: r.tenant,
    streamId: r.stream_id,
    revision: Number(r.revision),
    type: r.type,
    version: r.version,
    occurredAt: Number(r.occurred_at),
    userUuid: (r.metadata.userUuid as string | null) ?? null,
    requestId: String(r.metadata.requestId ?? ''),
    correlationId: String(r.metadata.correlationId ?? ''),
    causationId: (r.metadata.causationId as string | null) ?? null,
    data: r.data,
  };
}
