import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '../../aggregates/kernel/events.js';
import type { NewEvent } from '../../src/event-store/port.js';

export function aMetadata(overrides: Partial<EventMetadata> = {}): EventMetadata {
  return {
    tenant: 'tenant-a',
    userUuid: null,
    requestId: randomUUID(),
    correlationId: randomUUID(),
    causationId: null,
    occurredAt: 1_700_000_000_000,
    schemaVersion: 1,
    ...overrides,
  };
}

export function anEvent(type = 'Happened', data: unknown = { n: 1 }, metadata: Partial<EventMetadata> = {}): NewEvent {
  return { type, version: 1, data, metadata: aMetadata(metadata) };
}

export const events = (n: number, tenant = 'tenant-a') =>
  Array.from({ length: n }, (_, i) => anEvent('Happened', { n: i }, { tenant }));
