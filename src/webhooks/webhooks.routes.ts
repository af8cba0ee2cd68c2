import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { namedTopics, recordActions, TOPIC_GRAMMAR } from '../../aggregates/webhook/webhook.topics.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, type PaginationRequest, pageOffset } from '../http/pagination.js';
import { pathText } from '../http/path-params.js';
import { createWebhookBodySchema, formatSchema, toWebhook, updateWebhookBodySchema, webhookFormatList, webhookSchema } from './webhooks.schemas.js';
import type { WebhookOwner, WebhooksService } from './webhooks.service.js';
import type { Db } from '../db/db.js';
import { propertyTopics } from '../../read-models/webhooks.queries.js';
import { historyRoute, withAsOf } from '../history/history-routes.js';

const tags = ['webhooks'];
const params = z.object({ uuid: z.uuid() });
const read = { auth: { scopes: ['webhooks:read' as const] } };
const write = { auth: { scopes: ['webhooks:write' as const] } };

/** Whose webhooks a request acts on: may throw (a 404 for an app the company has not installed). */
export type OwnerOf = (request: FastifyRequest) => Promise<WebhookOwner>;
export const companyOwner: OwnerOf = async (request) => ({ tenant: companyActor(request).tenant, appUuid: null });

/** Spec 4.14: webhooks of the selected company (or, with `ownerOf`, of an app installed in it: 4.17). */
export const webhooksRoutes = (deps: { db: Db; webhooks: WebhooksService; ownerOf?: OwnerOf }): FastifyPluginAsyncZod =>
  async (app) => {
    const { webhooks } = deps;
    const ownerOf = deps.ownerOf ?? companyOwner;

    app.post(
      '/',
      { config: write, schema: { tags, description: 'Creates a webhook for the selected company. url, secret and topic are required; the secret is never returned.', body: createWebhookBodySchema, response: { 201: envelope(webhookSchema) } } },
      async (request, reply) => {
        reply.code(201);
        return ok(await app.audit.one(companyActor(request).tenant, await webhooks.create(commandContext(request), await ownerOf(request), request.body), toWebhook), 'created');
      },
    );

    /** One page of the company's webhooks, optionally those whose topic contains `topicContains`. */
    async function list(request: FastifyRequest, body: PaginationRequest, topicContains?: string) {
      const { limit, page: n, query } = body;
      const { rows, total } = await webhooks.list(await ownerOf(request), { topicContains, query, limit, offset: pageOffset(n, limit) });
      return page(await app.audit.all(companyActor(request).tenant, rows, toWebhook), total, n, limit);
    }

    app.post(
      '/index',
      { config: read, schema: { tags, description: 'Webhooks of the selected company, oldest first; `query` searches name, label, url and topic.', body: paginationBody, response: { 200: listEnvelope(webhookSchema) } } },
      async (request) => list(request, request.body),
    );

    app.post(
      '/index/:topic',
      { config: read, schema: { tags, description: 'Webhooks whose topic contains the substring {topic}.', params: z.object({ topic: pathText() }), body: paginationBody, response: { 200: listEnvelope(webhookSchema) } } },
      async (request) => list(request, request.body, request.params.topic),
    );

    app.get('/formats', { config: read, schema: { tags, description: 'Supported payload formats.', response: { 200: envelope(z.array(formatSchema)) } } }, async (request) => {
      await ownerOf(request);
      return ok(webhookFormatList);
    });

    app.get(
      '/events',
      {
        config: read,
        schema: {
          tags,
          description: 'The topic grammar: record actions and named events.',
          response: { 200: envelope(z.object({ grammar: z.string(), recordActions: z.array(z.string()), namedTopics: z.array(z.string()) })) },
        },
      },
      async (request) => (await ownerOf(request), ok({ grammar: TOPIC_GRAMMAR, recordActions: [...recordActions, 'all'], namedTopics: [...namedTopics] })),
    );

    app.get(
      '/property-topics',
      {
        config: read,
        schema: {
          tags,
          description: 'Property names usable in 4-part property_changed topics, per object (spec 6.2).',
          querystring: z.object({ objectName: z.string().min(1).max(63).optional() }),
          response: { 200: envelope(z.array(z.object({ objectName: z.string(), propertyName: z.string(), topic: z.string() }))) },
        },
      },
      async (request) => {
        await ownerOf(request);
        const rows = await propertyTopics(deps.db, companyActor(request).tenant, request.query.objectName ?? null);
        return ok(rows.map((r) => ({ objectName: r.object_name, propertyName: r.property_name, topic: `record.${r.object_name}.property_changed.${r.property_name}` })));
      },
    );

    historyRoute(app, 'webhooks', { config: read, tags, scope: ownerOf });
    app.get('/:uuid', withAsOf(app, 'webhooks', { config: read, schema: { tags, params, response: { 200: envelope(webhookSchema) } } }, { scope: ownerOf }), async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await webhooks.found(await ownerOf(request), request.params.uuid), toWebhook)),
    );

    app.put(
      '/:uuid',
      { config: write, schema: { tags, description: 'Changes the given fields; a given secret replaces the old one.', params, body: updateWebhookBodySchema, response: { 200: envelope(webhookSchema) } } },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await webhooks.update(commandContext(request), await ownerOf(request), request.params.uuid, request.body), toWebhook), 'updated'),
    );

    app.delete('/:uuid', { config: write, schema: { tags, params, response: { 200: envelope(z.string()) } } }, async (request) => {
      await webhooks.remove(commandContext(request), await ownerOf(request), request.params.uuid);
      return ok('deleted', 'deleted');
    });
  };
