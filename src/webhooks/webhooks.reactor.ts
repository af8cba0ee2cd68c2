import { randomUUID } from 'node:crypto';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { parseTopic, topicMatches, topicOf, type Occurrence, type Topic } from '../../aggregates/webhook/webhook.topics.js';
import { liveWebhooks, type WebhookRow } from '../../read-models/webhooks.queries.js';
import type { Db, Sql } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { Reactor } from '../reactors/runner.js';
import { RECORD_STREAM_PREFIX } from '../../aggregates/record/record.events.js';
import { foldRecord, isWebhookEvent, occurrenceOf, type RecordSnapshot } from './occurrences.js';
import { buildPayload, type RelatedRecord } from './payloads.js';

/** One row of the outbox, as the reactor, a replay or a redelivery enqueues it. */
export interface NewDelivery {
  deliveryUuid: string;
  tenant: string;
  webhookUuid: string;
  messageId: string;
  source: 'live' | 'replay' | 'redelivery';
  orderKey: string;
  topic: string;
  eventType: string | null;
  eventCheckpoint: string | null;
  eventPosition: number | null;
  streamId: string | null;
  eventOccurredAt: number | null;
  payload: string;
  nextAttemptAt: number;
  redeliveryOf?: string | null;
  replayUuid?: string | null;
}

export const newMessageId = () => `msg_${randomUUID().replaceAll('-', '')}`;

/** What decides whether a webhook hears of an event beyond its topic, and what it carries. */
export interface DeliveryRules {
  /** Whether the record passes the webhook's filter (the records' evaluator). */
  matchesFilter(tenant: string, webhook: WebhookRow, record: RecordSnapshot | null): Promise<boolean>;
  /** The related records that includeRelations, relationFilters and relationLimit ask for; same tenant only. */
  relatedRecords(tenant: string, webhook: WebhookRow, record: RecordSnapshot | null): Promise<RelatedRecord[]>;
  /** Property types of an object, for LEGACY payloads. */
  propertyTypes(tenant: string, objectUuid: string | null): Promise<Record<string, string>>;
  /** Names of objects by uuid (the objects a record extends). */
  objectNames(tenant: string, objectUuids: readonly string[]): Promise<string[]>;
}

/** Accepts every record and adds no relations: what applies until the records' filter and relations are wired. */
export const plainRules: DeliveryRules = {
  matchesFilter: async () => true,
  relatedRecords: async () => [],
  propertyTypes: async () => ({}),
  objectNames: async () => [],
};

export interface MatchContext {
  store: EventStore;
  rules: DeliveryRules;
}

/** The record as it was right after `event` (null for events that are not about a record). */
export async function snapshotAt(store: EventStore, event: StoredEvent): Promise<RecordSnapshot | null> {
  if (!event.streamId.startsWith(RECORD_STREAM_PREFIX)) return null;
  const history = await store.readStream(event.tenant, event.streamId, { fromRevision: 0, maxCount: event.revision + 1 });
  return foldRecord(history);
}

/**
 * The deliveries one event makes for the given webhooks: topic, then filter; the payload is built
 * here, once, with the record as it was right after the event.
 */
export async function deliveriesFor(
  ctx: MatchContext,
  event: StoredEvent,
  webhooks: readonly WebhookRow[],
  opts: { source: NewDelivery['source']; now: number; replayUuid?: string; respectCreation: boolean },
): Promise<NewDelivery[]> {
  const topics = new Map<string, Topic | null>();
  const topicFor = (w: WebhookRow) => {
    if (!topics.has(w.topic)) topics.set(w.topic, parseTopic(w.topic));
    return topics.get(w.topic)!;
  };
  let snapshot: RecordSnapshot | null | undefined;
  const record = async () => (snapshot === undefined ? (snapshot = await snapshotAt(ctx.store, event)) : snapshot);
  const candidates = webhooks.filter((w) => !opts.respectCreation || w.created_at <= event.metadata.occurredAt);
  if (candidates.length === 0) return [];
  const primary = occurrenceOf(event);
  if (!primary) return [];
  // Extended objects make the record visible under other names too.
  let occurrence: Occurrence = primary;
  if (primary.kind === 'record') {
    const r = await record();
    if (r && r.extends.length > 0) {
      const unnamed = r.extends.filter((u) => !r.extendedNames[u]);
      const names = [...Object.values(r.extendedNames), ...(unnamed.length > 0 ? await ctx.rules.objectNames(event.tenant, unnamed) : [])];
      occurrence = { ...primary, objectNames: [...new Set([...primary.objectNames, ...names])] };
    }
  }
  const out: NewDelivery[] = [];
  for (const webhook of candidates) {
    const topic = topicFor(webhook);
    if (!topic || !topicMatches(topic, occurrence)) continue;
    const r = occurrence.kind === 'record' ? await record() : null;
    if (webhook.filter && webhook.filter.groups.length > 0 && !(await ctx.rules.matchesFilter(event.tenant, webhook, r))) continue;
    const messageId = newMessageId();
    const objectName = topic.kind === 'named' ? undefined : topic.objectName;
    const type = topicOf(occurrence, objectName);
    const payload = buildPayload(webhook.webhook_format, {
      messageId,
      company: event.tenant,
      webhook: { uuid: webhook.webhook_uuid, topic: webhook.topic },
      type,
      occurrence,
      event,
      record: r,
      relations: occurrence.kind === 'record' ? await ctx.rules.relatedRecords(event.tenant, webhook, r) : [],
      propertyTypes: webhook.webhook_format === 'LEGACY' && r ? await ctx.rules.propertyTypes(event.tenant, r.objectUuid) : undefined,
    });
    out.push({
      deliveryUuid: randomUUID(),
      tenant: event.tenant,
      webhookUuid: webhook.webhook_uuid,
      messageId,
      source: opts.source,
      orderKey: event.streamId,
      topic: type,
      eventType: event.type,
      eventCheckpoint: event.checkpoint,
      eventPosition: event.position,
      streamId: event.streamId,
      eventOccurredAt: event.metadata.occurredAt,
      payload,
      nextAttemptAt: opts.now,
      replayUuid: opts.replayUuid ?? null,
    });
  }
  return out;
}

/** Inserts outbox rows; a live delivery already enqueued for the same webhook and event is skipped. */
export async function enqueue(sql: Sql, rows: readonly NewDelivery[]) {
  for (const d of rows) {
    await sql.query(
      `insert into webhook_deliveries (delivery_uuid, tenant, webhook_uuid, message_id, source, order_key, topic, event_type, event_checkpoint,
         event_position, stream_id, event_occurred_at, payload, status, next_attempt_at, created_at, redelivery_of, replay_uuid)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', $14, $15, $16, $17)
       on conflict do nothing`,
      [d.deliveryUuid, d.tenant, d.webhookUuid, d.messageId, d.source, d.orderKey, d.topic, d.eventType, d.eventCheckpoint, d.eventPosition,
        d.streamId, d.eventOccurredAt, d.payload, d.nextAttemptAt, Date.now(), d.redeliveryOf ?? null, d.replayUuid ?? null],
    );
  }
}

/**
 * The delivery reactor: for each record event (and connection, form submission) of a tenant that
 * has webhooks, the matching webhooks get one outbox row each, written with the checkpoint advance.
 * A webhook hears only of events that happened after it was created (replay covers the past).
 */
export function webhooksReactor(deps: { db: Db; store: EventStore; rules: DeliveryRules; onEnqueued: () => void }): Reactor<NewDelivery[]> {
  const ctx: MatchContext = { store: deps.store, rules: deps.rules };
  return {
    name: 'reactor:webhooks',
    handles: isWebhookEvent,
    async prepare(events) {
      const byTenant = new Map<string, WebhookRow[]>();
      const out: NewDelivery[] = [];
      for (const event of events) {
        let webhooks = byTenant.get(event.tenant);
        if (!webhooks) byTenant.set(event.tenant, (webhooks = await liveWebhooks(deps.db, event.tenant)));
        if (webhooks.length === 0) continue;
        out.push(...(await deliveriesFor(ctx, event, webhooks, { source: 'live', now: Date.now(), respectCreation: true })));
      }
      return out;
    },
    commit: (rows, tx) => enqueue(tx, rows),
    afterCommit(rows) {
      if (rows.length > 0) deps.onEnqueued();
    },
  };
}
