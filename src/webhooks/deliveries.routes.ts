import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import type { DeliveriesService } from './deliveries.service.js';
import { deliveryDetailSchema, deliverySchema, toAttempt, toDelivery } from './webhooks.schemas.js';
import type { DeliveryStatus } from '../../read-models/webhooks.queries.js';

const tags = ['webhooks'];
const webhookParams = z.object({ uuid: z.uuid() });
const deliveryParams = z.object({ uuid: z.uuid(), deliveryUuid: z.uuid() });
const read = { auth: { scopes: ['webhooks:read' as const] } };
const write = { auth: { scopes: ['webhooks:write' as const] } };
const statuses = ['pending', 'succeeded', 'failed'] as const;

const replayBodySchema = z
  .object({
    from: z.number().int().min(0).optional().describe('Events that occurred at or after this time (epoch ms)'),
    to: z.number().int().min(0).optional().describe('Events that occurred at or before this time (epoch ms)'),
    fromPosition: z.number().int().min(0).optional().describe('Events at or after this log position'),
    toPosition: z.number().int().min(0).optional().describe('Events at or before this log position'),
    afterCheckpoint: z.string().min(1).max(200).optional().describe("Read the log after this checkpoint (a delivery's eventCheckpoint, or continueAfter)"),
  })
  .meta({ id: 'WebhookReplayRequest' });

const replayResultSchema = z
  .object({ replayUuid: z.string(), scanned: z.number().int(), enqueued: z.number().int(), truncated: z.boolean(), continueAfter: z.string().nullable() })
  .meta({ id: 'WebhookReplayResult' });

/** The delivery log of a company webhook, redelivery and replay (issue 6). */
export const deliveriesRoutes = (deps: { deliveries: DeliveriesService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { deliveries } = deps;
    const owner = (request: FastifyRequest) => ({ tenant: companyActor(request).tenant, appUuid: null });

    app.post(
      '/:uuid/deliveries/index',
      {
        config: read,
        schema: {
          tags,
          description: "The webhook's deliveries, newest first: status, attempts, last response code and latency, next attempt. Filter {key: 'status', operator: 'equals', value: 'pending' | 'succeeded' | 'failed'}.",
          params: webhookParams,
          body: paginationBody,
          response: { 200: listEnvelope(deliverySchema) },
        },
      },
      async (request) => {
        const { limit, page: n, filters } = request.body;
        const wanted = filters.find((f) => f.key === 'status')?.value;
        const status = (statuses as readonly unknown[]).includes(wanted) ? (wanted as DeliveryStatus) : undefined;
        const { rows, total } = await deliveries.list(owner(request), request.params.uuid, { status, limit, offset: pageOffset(n, limit) });
        return page(rows.map(toDelivery), total, n, limit);
      },
    );

    app.get(
      '/:uuid/deliveries/:deliveryUuid',
      { config: read, schema: { tags, description: 'One delivery with its payload and every attempt.', params: deliveryParams, response: { 200: envelope(deliveryDetailSchema) } } },
      async (request) => {
        const { row, attempts } = await deliveries.detail(owner(request), request.params.uuid, request.params.deliveryUuid);
        return ok({ ...toDelivery(row), payload: JSON.parse(row.payload) as unknown, attemptLog: attempts.map(toAttempt) });
      },
    );

    app.post(
      '/:uuid/deliveries/:deliveryUuid/redeliver',
      { config: write, schema: { tags, description: 'Sends the same message (same webhook-id and body) again, as a new delivery.', params: deliveryParams, response: { 202: envelope(deliverySchema) } } },
      async (request, reply) => {
        reply.code(202);
        return ok(toDelivery(await deliveries.redeliver(owner(request), request.params.uuid, request.params.deliveryUuid)), 'accepted');
      },
    );

    app.post(
      '/:uuid/replay',
      {
        config: write,
        schema: {
          tags,
          description: 'Replays the events of a time range or of a range of log positions to this webhook (new messages); no bounds backfills the whole history.',
          params: webhookParams,
          body: replayBodySchema.default({}),
          response: { 202: envelope(replayResultSchema) },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return ok(await deliveries.replay(owner(request), request.params.uuid, request.body), 'accepted');
      },
    );
  };
