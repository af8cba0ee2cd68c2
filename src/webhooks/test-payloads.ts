import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import type { WebhookFormat } from '../../aggregates/webhook/webhook.schemas.js';
import { checkTopic, recordActions, type Occurrence, type RecordAction, type Topic } from '../../aggregates/webhook/webhook.topics.js';
import type { WebhookRow } from '../../read-models/webhooks.queries.js';
import { loadObjectSchema } from '../../read-models/schema.queries.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { changedProperties, foldRecord, occurrenceOf, type RecordSnapshot } from './occurrences.js';
import { buildPayload } from './payloads.js';
import { newMessageId, type DeliveryRules } from './webhooks.reactor.js';

/** The parts of a webhook a test payload depends on (a saved webhook, or an unsaved configuration). */
export type TestWebhook = Pick<WebhookRow, 'topic' | 'webhook_format' | 'filter' | 'include_relations' | 'relation_filters' | 'relation_limit'> & { webhook_uuid: string | null };

export interface TestPayloadRequest {
  tenant: string;
  webhook: TestWebhook;
  /** A record to build the payload from; otherwise the newest record matching topic and filter, or a simulated one. */
  recordUuid?: string;
  /** created | updated | deleted | archived | restored | all (all is tested as updated, spec 6.1). */
  eventType?: string;
  requestId: string;
  now: number;
}

export interface TestPayload {
  topic: string;
  eventType: string;
  simulated: boolean;
  /** Why the record is simulated (also context.testNote and the X-Webhook-Test-Note header). */
  testNote: string | null;
  messageId: string;
  /** The exact body a delivery would carry. */
  body: string;
}

/** Finds the newest live record of an object that passes the webhook's filter (the records read model). */
export type FindRecord = (tenant: string, objectName: string, accept: (record: RecordSnapshot) => Promise<boolean>) => Promise<RecordSnapshot | null>;

export const noRecords: FindRecord = async () => null;

const SIMULATED_UUID = '00000000-0000-4000-8000-000000000000';
const eventTypeOf: Record<RecordAction, string> = { created: 'RecordCreated', updated: 'RecordUpdated', deleted: 'RecordArchived', archived: 'RecordArchived', restored: 'RecordRestored' };

/** A plausible value for a property of the simulated record. */
function sampleValue(p: PropertyDefinition): unknown {
  switch (p.format) {
    case 'email':
      return 'jane.doe@example.com';
    case 'url':
      return 'https://example.com';
    case 'phone':
      return '+1 555 0100';
    case 'select':
      return p.options?.[0]?.value ?? 'option';
    case 'multi-select':
      return [p.options?.[0]?.value ?? 'option'];
    case 'number':
    case 'currency':
      return 42;
    case 'checkbox':
      return true;
    case 'date':
      return '2026-01-01';
    case 'datetime':
      return '2026-01-01T12:00:00.000Z';
    case 'json':
      return {};
    case 'linked':
    case 'file':
      return SIMULATED_UUID;
    default:
      return `Sample ${p.label || p.name}`;
  }
}

function actionFor(topic: Topic, eventType: string | undefined): RecordAction {
  if (eventType !== undefined) {
    if (eventType === 'all') return 'updated';
    if (!(recordActions as readonly string[]).includes(eventType)) {
      throw invalid('params.eventType', `params.eventType: ${eventType} is not a record event`, `Use one of: ${[...recordActions, 'all'].join(', ')}`, 'INVALID_VALUE');
    }
    return eventType as RecordAction;
  }
  if (topic.kind === 'record') return topic.action === 'all' ? 'updated' : topic.action;
  return 'updated';
}

/**
 * Test payloads (spec 6.6), built by the live delivery logic: the same payload builder, filter and
 * relation rules. A real record is used when one is named or one matches; otherwise a simulated
 * record, explained in context.testNote. Used by the company webhook routes and, later, the app
 * webhook routes.
 */
export function makeTestPayloads(deps: { db: Db; store: EventStore; rules: DeliveryRules; findRecord?: FindRecord }) {
  const { db, store, rules } = deps;
  const findRecord = deps.findRecord ?? noRecords;

  async function recordHistory(tenant: string, recordUuid: string) {
    const history = await store.readStream(tenant, `record-${recordUuid}`);
    const snapshot = foldRecord(history);
    if (!snapshot) throw notFound('Record', recordUuid);
    return { history, snapshot };
  }

  /** The record event the test stands for: the record's own latest one of that kind, or one made up from its state. */
  function eventFor(action: RecordAction, topic: Topic, record: RecordSnapshot, history: StoredEvent[], req: TestPayloadRequest): StoredEvent {
    const wanted = eventTypeOf[action];
    const own = [...history].reverse().find((e) => e.type === wanted && (topic.kind !== 'property_changed' || changedProperties(e).includes(topic.propertyName)));
    if (own) return own;
    const changed = topic.kind === 'property_changed' ? [topic.propertyName] : Object.keys(record.properties).slice(0, 1);
    const data =
      action === 'created'
        ? { uuid: record.uuid, objectUuid: record.objectUuid, objectName: record.objectName, properties: record.properties }
        : action === 'updated'
          ? { uuid: record.uuid, objectName: record.objectName, changes: Object.fromEntries(changed.map((name) => [name, { before: null, after: record.properties[name] ?? null }])) }
          : { uuid: record.uuid, objectName: record.objectName, ...(action === 'restored' ? {} : { mode: action === 'archived' ? 'archive' : 'delete' }) };
    return {
      type: wanted,
      version: 1,
      data,
      tenant: req.tenant,
      streamId: `record-${record.uuid}`,
      revision: record.revision,
      position: 0,
      checkpoint: '',
      metadata: { tenant: req.tenant, userUuid: null, requestId: req.requestId, correlationId: req.requestId, causationId: null, occurredAt: req.now, schemaVersion: 1 },
    };
  }

  async function simulated(tenant: string, objectName: string, action: RecordAction, now: number): Promise<{ record: RecordSnapshot; note: string }> {
    const schema = await loadObjectSchema(db, tenant, objectName);
    const properties = Object.fromEntries((schema?.properties ?? []).map((p) => [p.name, sampleValue(p)]));
    const record: RecordSnapshot = {
      uuid: SIMULATED_UUID,
      objectUuid: schema?.object.uuid ?? null,
      objectName,
      extends: [],
      extendedNames: {},
      properties,
      createdAt: now,
      updatedAt: now,
      deletedAt: action === 'deleted' || action === 'archived' ? now : null,
      revision: action === 'created' ? 0 : 1,
    };
    const note = schema
      ? `No ${objectName} record matches this webhook's topic and filter, so this payload uses a simulated record with sample values`
      : `The company has no object named ${objectName}, so this payload uses a simulated record without properties`;
    return { record, note };
  }

  return {
    async build(req: TestPayloadRequest): Promise<TestPayload> {
      const topic = checkTopic(req.webhook.topic);
      const format: WebhookFormat = req.webhook.webhook_format;
      const messageId = newMessageId();
      const webhookRef = { uuid: req.webhook.webhook_uuid ?? SIMULATED_UUID, topic: req.webhook.topic };
      const asRow = req.webhook as WebhookRow;

      if (topic.kind === 'named' && topic.name !== 'PropertyValueChanged') {
        const note = `${topic.name} is tested with a simulated event`;
        const data =
          topic.name === 'RelationCreated'
            ? { relationUuid: SIMULATED_UUID, fromRecordUuid: SIMULATED_UUID, toRecordUuid: SIMULATED_UUID, edgeProperties: {} }
            : { formUuid: SIMULATED_UUID, values: {} };
        const occurrence: Occurrence = { kind: 'named', name: topic.name };
        const event = { type: topic.name === 'RelationCreated' ? 'RecordsConnected' : 'FormSubmitted', data, streamId: 'simulated', revision: 0, position: 0, metadata: { tenant: req.tenant, userUuid: null, requestId: req.requestId, correlationId: req.requestId, causationId: null, occurredAt: req.now, schemaVersion: 1 } };
        const body = buildPayload(format, { messageId, company: req.tenant, webhook: webhookRef, type: topic.name, occurrence, event, record: null, relations: [], context: { test: true, simulated: true, testNote: note } });
        return { topic: req.webhook.topic, eventType: topic.name, simulated: true, testNote: note, messageId, body };
      }

      const action = actionFor(topic, req.eventType);
      const objectName = topic.kind === 'named' ? null : topic.objectName;
      let record: RecordSnapshot | null = null;
      let history: StoredEvent[] = [];
      let note: string | null = null;
      if (req.recordUuid) {
        const loaded = await recordHistory(req.tenant, req.recordUuid);
        record = loaded.snapshot;
        history = loaded.history;
        if (objectName && record.objectName !== objectName && !Object.values(record.extendedNames).includes(objectName)) {
          throw invalid('recordUuid', `recordUuid: record ${req.recordUuid} is a ${record.objectName}, not a ${objectName}`, `Name a ${objectName} record, or leave recordUuid out`, 'INVALID_VALUE');
        }
      } else if (objectName) {
        const accept = async (r: RecordSnapshot) => !asRow.filter || asRow.filter.groups.length === 0 || rules.matchesFilter(req.tenant, asRow, r);
        const found = await findRecord(req.tenant, objectName, accept);
        if (found) {
          const loaded = await recordHistory(req.tenant, found.uuid);
          record = loaded.snapshot;
          history = loaded.history;
        }
      }
      if (!record) {
        const sim = await simulated(req.tenant, objectName ?? 'record', action, req.now);
        record = sim.record;
        note = topic.kind === 'named' ? 'PropertyValueChanged is tested with a simulated record; name a record to test with real values' : sim.note;
      }
      const event = eventFor(action, topic, record, history, req);
      const occurrence = occurrenceOf(event, Object.values(record.extendedNames)) as Occurrence;
      const type = `record.${objectName ?? record.objectName}.${action}`;
      const body = buildPayload(format, {
        messageId,
        company: req.tenant,
        webhook: webhookRef,
        type,
        occurrence,
        event,
        record,
        relations: note ? [] : await rules.relatedRecords(req.tenant, asRow, record),
        propertyTypes: format === 'LEGACY' ? await rules.propertyTypes(req.tenant, record.objectUuid) : undefined,
        context: { test: true, simulated: note !== null, ...(note ? { testNote: note } : {}) },
      });
      return { topic: req.webhook.topic, eventType: action, simulated: note !== null, testNote: note, messageId, body };
    },
  };
}
export type TestPayloads = ReturnType<typeof makeTestPayloads>;
