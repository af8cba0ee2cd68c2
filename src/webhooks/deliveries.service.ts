import { randomUUID } from 'node:crypto';
import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import { attemptsOf, deliveryByUuid, listDeliveries, type DeliveryStatus } from '../../read-models/webhooks.queries.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { deliveriesFor, enqueue, type DeliveryRules, type NewDelivery } from './webhooks.reactor.js';
import type { WebhookOwner, WebhooksService } from './webhooks.service.js';

export interface ReplayRequest {
  /** Occurred at or after (epoch ms). */
  from?: number;
  /** Occurred at or before (epoch ms). */
  to?: number;
  /** Log position at or after. */
  fromPosition?: number;
  /** Log position at or before. */
  toPosition?: number;
  /** Start reading the log after this checkpoint (from a delivery's eventCheckpoint, or a previous replay's continueAfter). */
  afterCheckpoint?: string;
}

export interface ReplayResult {
  replayUuid: string;
  scanned: number;
  enqueued: number;
  truncated: boolean;
  /** When truncated: call again with afterCheckpoint set to this to go on. */
  continueAfter: string | null;
}

const SCAN_BATCH = 500;

/** The delivery log of a webhook, redelivery of one message, and replay of a range of the log. */
export function makeDeliveriesService(deps: { db: Db; store: EventStore; webhooks: WebhooksService; rules: DeliveryRules; wake: () => void; replayMax: number }) {
  const { db, store, webhooks } = deps;

  return {
    async list(owner: WebhookOwner, webhookUuid: string, o: { status?: DeliveryStatus; limit: number; offset: number }) {
      await webhooks.found(owner, webhookUuid);
      return listDeliveries(db, owner.tenant, webhookUuid, o);
    },

    async detail(owner: WebhookOwner, webhookUuid: string, deliveryUuid: string) {
      await webhooks.found(owner, webhookUuid);
      const row = await deliveryByUuid(db, owner.tenant, webhookUuid, deliveryUuid);
      if (!row) throw notFound('Delivery', deliveryUuid);
      return { row, attempts: await attemptsOf(db, deliveryUuid) };
    },

    /** Sends the same message again (same webhook-id and body) as a new delivery with fresh attempts. */
    async redeliver(owner: WebhookOwner, webhookUuid: string, deliveryUuid: string) {
      await webhooks.found(owner, webhookUuid);
      const original = await deliveryByUuid(db, owner.tenant, webhookUuid, deliveryUuid);
      if (!original) throw notFound('Delivery', deliveryUuid);
      const copy: NewDelivery = {
        deliveryUuid: randomUUID(),
        tenant: owner.tenant,
        webhookUuid,
        messageId: original.message_id,
        source: 'redelivery',
        orderKey: original.order_key,
        topic: original.topic,
        eventType: original.event_type,
        eventCheckpoint: original.event_checkpoint,
        eventPosition: original.event_position,
        streamId: original.stream_id,
        eventOccurredAt: original.event_occurred_at,
        payload: original.payload,
        nextAttemptAt: Date.now(),
        redeliveryOf: original.delivery_uuid,
      };
      await enqueue(db, [copy]);
      deps.wake();
      return (await deliveryByUuid(db, owner.tenant, webhookUuid, copy.deliveryUuid))!;
    },

    /**
     * Replays the events of a range of the log to one webhook, as new messages: every event of the
     * company that matches the webhook's topic and filter now, with the payload it would have had.
     * With no bounds this backfills a new webhook with the whole history. The log is read from the
     * start (or `afterCheckpoint`); at most `replayMax` deliveries per call, then `continueAfter`.
     */
    async replay(owner: WebhookOwner, webhookUuid: string, request: ReplayRequest): Promise<ReplayResult> {
      const webhook = await webhooks.found(owner, webhookUuid);
      if (request.from !== undefined && request.to !== undefined && request.from > request.to) {
        throw invalid('body.from', 'body.from: from is after to', 'Send from <= to (epoch milliseconds)');
      }
      const replayUuid = randomUUID();
      const ctx = { store, rules: deps.rules };
      let after = request.afterCheckpoint;
      let scanned = 0;
      let enqueued = 0;
      for (;;) {
        const batch = await store.readAll({ after, maxCount: SCAN_BATCH });
        const rows: NewDelivery[] = [];
        let stoppedAt: string | null = null;
        for (const event of batch) {
          scanned++;
          after = event.checkpoint;
          if (event.tenant !== owner.tenant) continue;
          const at = event.metadata.occurredAt;
          if ((request.from !== undefined && at < request.from) || (request.to !== undefined && at > request.to)) continue;
          if ((request.fromPosition !== undefined && event.position < request.fromPosition) || (request.toPosition !== undefined && event.position > request.toPosition)) continue;
          rows.push(...(await deliveriesFor(ctx, event, [webhook], { source: 'replay', now: Date.now(), replayUuid, respectCreation: false })));
          if (enqueued + rows.length >= deps.replayMax) {
            stoppedAt = event.checkpoint;
            break;
          }
        }
        if (rows.length > 0) await db.transaction((tx) => enqueue(tx, rows));
        enqueued += rows.length;
        if (rows.length > 0) deps.wake();
        if (stoppedAt) return { replayUuid, scanned, enqueued, truncated: true, continueAfter: stoppedAt };
        if (batch.length < SCAN_BATCH) return { replayUuid, scanned, enqueued, truncated: false, continueAfter: null };
      }
    },
  };
}
export type DeliveriesService = ReturnType<typeof makeDeliveriesService>;
