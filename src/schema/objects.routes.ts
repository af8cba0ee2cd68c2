import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { errorResponses, indexBody, readAuth, writeAuth } from './http-common.js';
import { createObjectBodySchema, objectSchema, toObject, updateObjectBodySchema } from './objects.schemas.js';
import type { ObjectsService } from './objects.service.js';

const tags = ['objects'];
const params = z.object({ uuid: z.uuid() });

/** Objects: the schema of a company's domain (create, list, read, update, soft delete, restore). */
export const objectsRoutes = (deps: { objects: ObjectsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { objects } = deps;

    app.post(
      '/',
      {
        config: writeAuth,
        schema: { tags, description: 'Creates an object.', body: createObjectBodySchema, response: { 201: envelope(objectSchema), ...errorResponses(400, 401, 403, 409) } },
      },
      async (request, reply) => {
        reply.code(201);
        return ok(await app.audit.one(companyActor(request).tenant, await objects.create(commandContext(request), request.body), toObject), 'created');
      },
    );

    app.post(
      '/index',
      {
        config: readAuth,
        schema: {
          tags,
          description: 'Objects of the selected company. Filter and sort keys: uuid, name, label, plural, description, group, createdAt, updatedAt, deletedAt (soft-deleted objects are listed only when a filter names deletedAt). `query` searches name, label and plural.',
          body: indexBody,
          response: { 200: listEnvelope(objectSchema), ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => {
        const { rows, total } = await objects.list(companyActor(request).tenant, request.body);
        return page(await app.audit.all(companyActor(request).tenant, rows, toObject), total, request.body.page, request.body.limit);
      },
    );

    app.get(
      '/:uuid',
      { config: readAuth, schema: { tags, description: 'One object, soft-deleted or not.', params, response: { 200: envelope(objectSchema), ...errorResponses(401, 403, 404) } } },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await objects.get(companyActor(request).tenant, request.params.uuid), toObject)),
    );

    app.put(
      '/:uuid',
      {
        config: writeAuth,
        schema: { tags, description: 'Changes the label, plural, description, icon or group; the name cannot change.', params, body: updateObjectBodySchema, response: { 200: envelope(objectSchema), ...errorResponses(400, 401, 403, 404, 409) } },
      },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await objects.update(commandContext(request), request.params.uuid, request.body), toObject), 'updated'),
    );

    app.delete(
      '/:uuid',
      { config: writeAuth, schema: { tags, description: 'Soft-deletes the object; its name stays taken until it is restored.', params, response: { 200: envelope(objectSchema), ...errorResponses(401, 403, 404, 409) } } },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await objects.remove(commandContext(request), request.params.uuid), toObject), 'deleted'),
    );

    app.post(
      '/:uuid/restore',
      { config: writeAuth, schema: { tags, description: 'Restores a soft-deleted object.', params, response: { 200: envelope(objectSchema), ...errorResponses(401, 403, 404, 409) } } },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await objects.restore(commandContext(request), request.params.uuid), toObject), 'restored'),
    );
  };
