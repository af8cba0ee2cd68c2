import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { ExpectedStreamRevision } from './port.js';

/** Where an event landed: what the append statements return, and what a read of `events` selects beside the event. */
export interface EventPlace {
  tenant: string;
  stream_id: string;
  revision: number;
  position: number;
  tx_id: string;
}

/** A row of `events` as the reads select it (`eventColumns`). */
export interface EventRow extends EventPlace {
  type: string;
  version: number;
  data: unknown;
  metadata: StoredEvent['metadata'];
}

// The text copy of the xid8 gets its own name: ORDER BY transaction_id must sort the xid8, not text.
export const eventColumns = 'position, transaction_id::text as tx_id, tenant, stream_id, revision, type, version, data, metadata';

/** The one row mapper: an event and the place the log gave it. */
export function storedEvent(event: Pick<StoredEvent, 'type' | 'version' | 'data' | 'metadata'>, at: EventPlace): StoredEvent {
  return {
    type: event.type,
    version: event.version,
    data: event.data,
    metadata: event.metadata,
    tenant: at.tenant,
    streamId: at.stream_id,
    revision: at.revision,
    position: at.position,
    checkpoint: `${at.tx_id}:${at.position}`,
  };
}

/** A row of `eventColumns` read as an array (the hot path of the global log). */
export function eventOfArray(r: unknown[]): StoredEvent {
  const [position, tx_id, tenant, stream_id, revision, type, version, data, metadata] = r as [number, string, string, string, number, string, number, unknown, StoredEvent['metadata']];
  return storedEvent({ type, version, data, metadata }, { position, tx_id, tenant, stream_id, revision });
}

export function wrongRevision(streamId: string, expected: ExpectedStreamRevision, actual: number) {
  return new DomainError('WRONG_EXPECTED_REVISION', `stream ${streamId} is at revision ${actual}, not ${String(expected)}`, [
    {
      message: `The resource changed since revision ${String(expected)}; it is now at revision ${actual}`,
      type: 'GENERAL',
      correctionSuggestion: 'Read the resource again and retry with its current revision',
    },
  ], { actualRevision: actual });
}
