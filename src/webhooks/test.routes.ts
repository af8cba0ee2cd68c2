import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, invalid } from '../../aggregates/kernel/errors.js';
import { checkTopic } from '../../aggregates/webhook/webhook.topics.js';
import { webhookSecret } from '../../read-models/webhooks.queries.js';
import { companyActor, hasScope } from '../auth/actor.js';
import type { Db } from '../db/db.js';
import { envelope, ok } from '../http/envelope.js';
import { signatureHeaders, UrlRefused, type UrlGuard } from '../outbound/index.js';
import { postDelivery } from './post-delivery.js';
import type { TestPayload, TestPayloads, TestWebhook } from './test-payloads.js';
import { createWebhookBodySchema } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';
import { companyOwner, type OwnerOf } from './webhooks.routes.js';

const tags = ['webhooks'];
const read = { auth: { scopes: ['webhooks:read' as const] } };

const testResultSchema = z
  .object({
    topic: z.string(),
    eventType: z.string(),
    simulated: z.boolean().describe('True when no real record was used'),
    testNote: z.string().nullable().describe('Why the record is simulated (also payload context.testNote and header X-Webhook-Test-Note)'),
    messageId: z.string(),
    payload: z.unknown().describe('The body a delivery would carry'),
    delivery: z
      .object({ responseCode: z.number().int().nullable(), latencyMs: z.number().int(), ok: z.boolean(), error: z.string().nullable() })
      .nullable()
      .describe('With ?deliver=true: the outcome of sending the payload once (the receiver body is never shown)'),
  })
  .meta({ id: 'WebhookTestResult' });

const deliverQuery = z.object({ deliver: z.enum(['true', 'false']).optional().describe('true: also send the payload once to the URL, signed') });

const unsavedBodySchema = createWebhookBodySchema
  .partial()
  .extend({
    topic: z.string().min(1).max(300),
    recordUuid: z.uuid().optional().describe('Build the payload from this record'),
    eventType: z.string().max(40).optional().describe('created | updated | deleted | archived | restored | all'),
  })
  .meta({ id: 'WebhookTestRequest' });

/**
 * Test payloads (spec 6.6) for company webhooks: from an unsaved configuration, from a saved
 * webhook with an auto-resolved record, or for a given record and event type. The logic lives
 * in test-payloads.ts so the app webhook routes reuse it.
 */
export const webhookTestRoutes = (deps: { db: Db; webhooks: WebhooksService; tests: TestPayloads; guard: UrlGuard; timeoutMs: number; ownerOf?: OwnerOf }): FastifyPluginAsyncZod =>
  async (app) => {
    const { webhooks, tests } = deps;
    const ownerOf = deps.ownerOf ?? companyOwner;

    async function answer(request: FastifyRequest, reply: FastifyReply, built: TestPayload, target: { url: string; secret: string } | null, deliver: boolean) {
      let delivery = null;
      if (deliver) {
        const actor = companyActor(request);
        if (!hasScope(actor, 'webhooks:write')) {
          throw new DomainError('FORBIDDEN', 'Not allowed: needs the scopes webhooks:write', [{ message: 'Sending a test delivery needs webhooks:write', type: 'GENERAL', correctionSuggestion: 'Leave deliver out, or ask an ADMIN for webhooks:write' }], { roles: [], scopes: ['webhooks:write'] });
        }
        if (!target) throw invalid('body.url', 'body.url: deliver=true needs url and secret', 'Send url and secret with the configuration, or test a saved webhook');
        try {
          const safe = await deps.guard.resolve(target.url);
          const result = await postDelivery(safe, signatureHeaders(target.secret, built.messageId, new Date(), built.body), built.body, { timeoutMs: deps.timeoutMs, userAgent: 'platform-webhooks/1 (test)' });
          delivery = { responseCode: result.statusCode, latencyMs: result.latencyMs, ok: result.ok, error: result.error };
        } catch (err) {
          if (!(err instanceof UrlRefused)) throw err;
          delivery = { responseCode: null, latencyMs: 0, ok: false, error: `refused: ${err.reason}` };
        }
      }
      if (built.testNote) reply.header('x-webhook-test-note', built.testNote);
      return ok({ topic: built.topic, eventType: built.eventType, simulated: built.simulated, testNote: built.testNote, messageId: built.messageId, payload: JSON.parse(built.body) as unknown, delivery });
    }

    const saved = async (request: FastifyRequest, uuid: string) => {
      const owner = await ownerOf(request);
      const tenant = owner.tenant;
      const row = await webhooks.found(owner, uuid);
      const secret = await webhookSecret(deps.db, tenant, uuid);
      return { row, target: secret ? { url: row.url, secret } : null };
    };

    app.post(
      '/test',
      { config: read, schema: { tags, description: 'Test payload from an unsaved webhook configuration; optional recordUuid.', querystring: deliverQuery, body: unsavedBodySchema, response: { 200: envelope(testResultSchema) } } },
      async (request, reply) => {
        const b = request.body;
        await ownerOf(request);
        checkTopic(b.topic);
        const webhook: TestWebhook = {
          webhook_uuid: null,
          topic: b.topic.trim(),
          webhook_format: b.webhookFormat ?? 'structured',
          filter: b.filter ?? null,
          include_relations: b.includeRelations ?? [],
          relation_filters: b.relationFilters ?? {},
          relation_limit: b.relationLimit ?? 10,
        };
        const built = await tests.build({ tenant: companyActor(request).tenant, webhook, recordUuid: b.recordUuid, eventType: b.eventType, requestId: request.id, now: Date.now() });
        return answer(request, reply, built, b.url && b.secret ? { url: b.url, secret: b.secret } : null, request.query.deliver === 'true');
      },
    );

    app.post(
      '/test/:webhookUuid',
      { config: read, schema: { tags, description: "Test payload of a saved webhook, with the newest record matching its topic and filter (or a simulated one).", params: z.object({ webhookUuid: z.uuid() }), querystring: deliverQuery, response: { 200: envelope(testResultSchema) } } },
      async (request, reply) => {
        const { row, target } = await saved(request, request.params.webhookUuid);
        const built = await tests.build({ tenant: row.tenant, webhook: row, requestId: request.id, now: Date.now() });
        return answer(request, reply, built, target, request.query.deliver === 'true');
      },
    );

    app.post(
      '/test/:webhookUuid/:recordUuid/:eventType',
      {
        config: read,
        schema: {
          tags,
          description: 'Test payload of a saved webhook for a given record and event type (created, updated, deleted, archived, restored, all), by the live delivery logic.',
          params: z.object({ webhookUuid: z.uuid(), recordUuid: z.uuid(), eventType: z.string().min(1).max(40) }),
          querystring: deliverQuery,
          response: { 200: envelope(testResultSchema) },
        },
      },
      async (request, reply) => {
        const { row, target } = await saved(request, request.params.webhookUuid);
        const built = await tests.build({ tenant: row.tenant, webhook: row, recordUuid: request.params.recordUuid, eventType: request.params.eventType, requestId: request.id, now: Date.now() });
        return answer(request, reply, built, target, request.query.deliver === 'true');
      },
    );
  };
