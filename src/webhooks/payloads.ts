import type { StoredEvent } from '../../aggregates/kernel/events.js';
import type { WebhookFormat } from '../../aggregates/webhook/webhook.schemas.js';
import type { Occurrence } from '../../aggregates/webhook/webhook.topics.js';
import type { RecordSnapshot } from './occurrences.js';

/** A related record added by includeRelations (spec 2.5's relation entry, trimmed to what we know). */
export interface RelatedRecord {
  relationName: string;
  relationUuid: string;
  direction: 'outgoing' | 'incoming';
  objectName: string;
  uuid: string;
  properties: Record<string, unknown>;
  edgeProperties: Record<string, unknown>;
}

/** Everything a payload is made of: the same inputs for live deliveries, replays and tests. */
export interface PayloadInput {
  messageId: string;
  company: string;
  webhook: { uuid: string; topic: string };
  /** The topic string of what happened, e.g. record.contact.updated. */
  type: string;
  occurrence: Occurrence;
  event: Pick<StoredEvent, 'type' | 'data' | 'streamId' | 'revision' | 'position' | 'metadata'>;
  record: RecordSnapshot | null;
  relations: RelatedRecord[];
  /** Property name -> type, for the LEGACY property list. */
  propertyTypes?: Record<string, string>;
  /** Test payloads: why the record is simulated (context.testNote). */
  context?: { test: true; simulated: boolean; testNote?: string };
}

const changesOf = (input: PayloadInput): Record<string, { before: unknown; after: unknown }> =>
  input.event.type === 'RecordUpdated' ? ((input.event.data as { changes?: Record<string, { before: unknown; after: unknown }> }).changes ?? {}) : {};

function typeOfValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'json';
  if (typeof value === 'object') return 'json';
  return typeof value;
}

function eventFacts(input: PayloadInput) {
  const { event } = input;
  return {
    type: event.type,
    position: event.position,
    streamId: event.streamId,
    revision: event.revision,
    occurredAt: event.metadata.occurredAt,
    userUuid: event.metadata.userUuid,
    requestId: event.metadata.requestId,
    correlationId: event.metadata.correlationId,
    causationId: event.metadata.causationId,
  };
}

/**
 * `structured`: the Standard Webhooks envelope {id, type, timestamp, data}; `data` holds the
 * record as it was right after the event (properties as a name -> value map), the changes of an
 * update, the related records and the event's facts (position, causation).
 */
function structured(input: PayloadInput) {
  const { occurrence, record } = input;
  const data: Record<string, unknown> =
    occurrence.kind === 'record'
      ? { action: occurrence.action, objectName: record?.objectName ?? occurrence.objectNames[0], record, changes: changesOf(input), relations: input.relations }
      : { name: occurrence.name, payload: input.event.data };
  return {
    id: input.messageId,
    type: input.type,
    timestamp: new Date(input.event.metadata.occurredAt).toISOString(),
    company: input.company,
    webhook: input.webhook,
    data: { ...data, event: eventFacts(input) },
    ...(input.context ? { context: input.context } : {}),
  };
}

/** LEGACY: the flat shape of the platform's first webhooks; properties as [{name, type, value}] (spec 2.2). */
function legacy(input: PayloadInput) {
  const { occurrence, record } = input;
  const base = { id: input.messageId, topic: input.webhook.topic, event: occurrence.kind === 'record' ? occurrence.action : occurrence.name, timestamp: input.event.metadata.occurredAt, companyUuid: input.company };
  const context = input.context ? { context: input.context } : {};
  if (occurrence.kind !== 'record') return { ...base, data: input.event.data, ...context };
  const types = input.propertyTypes ?? {};
  return {
    ...base,
    objectName: record?.objectName ?? occurrence.objectNames[0],
    uuid: record?.uuid ?? null,
    record: record && {
      uuid: record.uuid,
      objectName: record.objectName,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      deletedAt: record.deletedAt,
      properties: Object.entries(record.properties).map(([name, value]) => ({ name, type: types[name] ?? typeOfValue(value), value })),
      relations: input.relations.map((r) => ({ relationName: r.relationName, uuid: r.uuid, objectName: r.objectName, properties: r.properties, edgeProperties: r.edgeProperties })),
    },
    changes: Object.entries(changesOf(input)).map(([name, c]) => ({ name, before: c.before, after: c.after })),
    ...context,
  };
}

/** The exact body of a delivery: built once, signed on every attempt, the same bytes every time. */
export function buildPayload(format: WebhookFormat, input: PayloadInput): string {
  return JSON.stringify(format === 'LEGACY' ? legacy(input) : structured(input));
}
