import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { createSyncBodySchema, syncSchema, toSync, updateSyncBodySchema } from './syncs.schemas.js';
import type { SyncsService } from './syncs.service.js';

const tags = ['syncs'];
const params = z.object({ uuid: z.uuid() });
const read = { auth: { scopes: ['syncs:read' as const] } };
const write = { auth: { scopes: ['syncs:write' as const] } };

/** Syncs (spec 1.11, 3, 4.7): `POST sync/`, `POST sync/index`, `GET PUT DELETE sync/{uuid}`, `POST sync/{uuid}/restore`. */
export const syncsRoutes = (deps: { syncs: SyncsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { syncs } = deps;

    app.post(
      '/',
      { config: write, schema: { tags, description: 'Creates a sync: mapped properties of source records are copied to their related target records on create, update and connect.', body: createSyncBodySchema, response: { 201: envelope(syncSchema) } } },
      async (request, reply) => {
        reply.code(201);
        return ok(await app.audit.one(companyActor(request).tenant, await syncs.create(commandContext(request), request.body), toSync), 'created');
      },
    );

    app.post(
      '/index',
      {
        config: read,
        schema: {
          tags,
          description: "The company's syncs, oldest first; `query` searches names and objects; filter {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.",
          body: paginationBody,
          response: { 200: listEnvelope(syncSchema) },
        },
      },
      async (request) => {
        const { limit, page: n, query, filters } = request.body;
        const deleted = filters.some((f) => f.key === 'deleted' && f.value === true);
        const { rows, total } = await syncs.list(companyActor(request).tenant, { deleted, query, limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(companyActor(request).tenant, rows, toSync), total, n, limit);
      },
    );

    app.get('/:uuid', { config: read, schema: { tags, params, response: { 200: envelope(syncSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await syncs.found(companyActor(request).tenant, request.params.uuid), toSync)),
    );

    app.put('/:uuid', { config: write, schema: { tags, params, body: updateSyncBodySchema, response: { 200: envelope(syncSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await syncs.update(commandContext(request), request.params.uuid, request.body), toSync), 'updated'),
    );

    app.delete('/:uuid', { config: write, schema: { tags, params, response: { 200: envelope(z.string()) } } }, async (request) => {
      await syncs.remove(commandContext(request), request.params.uuid);
      return ok('deleted', 'deleted');
    });

    app.post('/:uuid/restore', { config: write, schema: { tags, description: 'Restores a deleted sync; 409 when it is not deleted.', params, response: { 200: envelope(syncSchema) } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await syncs.restore(commandContext(request), request.params.uuid), toSync), 'restored'),
    );
  };
