import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { createFeedBodySchema, feedSchema, feedWithUrlSchema, publicFeedPath, toFeed, updateFeedBodySchema } from './feeds.schemas.js';
import type { FeedsService } from './feeds.service.js';

const tags = ['feeds'];
const params = z.object({ uuid: z.uuid() });
const read = { auth: { scopes: ['feeds:read' as const] } };
const write = { auth: { scopes: ['feeds:write' as const] } };

/**
 * Feeds (spec 1.15, docs/feeds.md): `POST feeds`, `POST feeds/index`, `GET PUT DELETE feeds/{uuid}`,
 * `POST feeds/{uuid}/restore`, `POST feeds/{uuid}/rotate-token`. The public URL is answered by
 * create and rotate only.
 */
export const feedsRoutes = (deps: { feeds: FeedsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { feeds } = deps;

    app.post(
      '/',
      { config: write, schema: { tags, description: "Creates a feed of an object's records; the answer carries its public URL (shown only now).", body: createFeedBodySchema, response: { 201: envelope(feedWithUrlSchema) } } },
      async (request, reply) => {
        const { row, token } = await feeds.create(commandContext(request), request.body);
        reply.code(201);
        return ok(await app.audit.one(companyActor(request).tenant, row, (r, actors) => ({ ...toFeed(r, actors), publicUrl: publicFeedPath(token) })), 'created');
      },
    );

    app.post(
      '/index',
      {
        config: read,
        schema: {
          tags,
          description: "The company's feeds, oldest first; `query` searches names, titles and objects; filter {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.",
          body: paginationBody,
          response: { 200: listEnvelope(feedSchema) },
        },
      },
      async (request) => {
        const { limit, page: n, query, filters } = request.body;
        const deleted = filters.some((f) => f.key === 'deleted' && f.value === true);
        const tenant = companyActor(request).tenant;
        const { rows, total } = await feeds.list(tenant, { deleted, query, limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(tenant, rows, toFeed), total, n, limit);
      },
    );

    app.get('/:uuid', { config: read, schema: { tags, params, response: { 200: envelope(feedSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await feeds.found(companyActor(request).tenant, request.params.uuid), toFeed)),
    );

    app.put('/:uuid', { config: write, schema: { tags, params, body: updateFeedBodySchema, response: { 200: envelope(feedSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await feeds.update(commandContext(request), request.params.uuid, request.body), toFeed), 'updated'),
    );

    app.delete('/:uuid', { config: write, schema: { tags, description: 'Deletes a feed (soft): its public URL answers 404 until it is restored.', params, response: { 200: envelope(z.string()) } } }, async (request) => {
      await feeds.remove(commandContext(request), request.params.uuid);
      return ok('deleted', 'deleted');
    });

    app.post('/:uuid/restore', { config: write, schema: { tags, description: 'Restores a deleted feed; 409 when it is not deleted.', params, response: { 200: envelope(feedSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await feeds.restore(commandContext(request), request.params.uuid), toFeed), 'restored'),
    );

    app.post(
      '/:uuid/rotate-token',
      { config: write, schema: { tags, description: 'Gives the feed a new public URL; the old one answers 404 from now on.', params, response: { 200: envelope(feedWithUrlSchema) } } },
      async (request) => {
        const { row, token } = await feeds.rotate(commandContext(request), request.params.uuid);
        return ok(await app.audit.one(companyActor(request).tenant, row, (r, actors) => ({ ...toFeed(r, actors), publicUrl: publicFeedPath(token) })), 'rotated');
      },
    );
  };
