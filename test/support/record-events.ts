import { randomUUID } from 'node:crypto';
import type { EventStore } from '../../src/event-store/port.js';
import { aMetadata } from './builders.js';

/**
 * Writes record events straight to the log, in the records' fixed contracts: for reactor tests
 * that need a record's history without going through the record routes.
 */
export function recordWriter(store: EventStore, tenant: string, objectName: string, objectUuid: string = randomUUID()) {
  const append = async (recordUuid: string, type: string, data: Record<string, unknown>) => {
    const [e] = (await store.append(tenant, `record-${recordUuid}`, [{ type, version: 1, data, metadata: aMetadata({ tenant, occurredAt: Date.now() }) }], { expectedRevision: 'any' })).events;
    return e!;
  };
  return {
    objectUuid,
    async create(properties: Record<string, unknown>, recordUuid: string = randomUUID()) {
      const event = await append(recordUuid, 'RecordCreated', { uuid: recordUuid, objectUuid, objectName, properties });
      return { recordUuid, event };
    },
    update(recordUuid: string, changes: Record<string, { before: unknown; after: unknown }>) {
      return append(recordUuid, 'RecordUpdated', { uuid: recordUuid, objectName, changes });
    },
    archive(recordUuid: string, mode = 'archive') {
      return append(recordUuid, 'RecordArchived', { uuid: recordUuid, objectName, mode });
    },
    restore(recordUuid: string) {
      return append(recordUuid, 'RecordRestored', { uuid: recordUuid, objectName });
    },
  };
}
