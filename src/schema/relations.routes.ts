import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { dataString, errorResponses, indexBody, readAuth, writeAuth } from './http-common.js';
import { relationBodySchema, relationFromObjectSchema, relationSchema, toRelation, toRelationFromObject, updateIndicesBodySchema } from './relations.schemas.js';
import type { RelationsService } from './relations.service.js';

const tags = ['relations'];
const relationParams = z.object({ relationUuid: z.uuid() });
const objectParams = z.object({ objectUuid: z.uuid() });
const listKeys = 'Filter and sort keys: uuid, name, label, cardinality, direction, fromObjectUuid, toObjectUuid, index, createdAt, updatedAt, deletedAt (soft-deleted relations only when a filter names deletedAt).';

/** Relations (spec 4.6): definitions between objects. Connections of records are in connections.routes.ts. */
export const relationsRoutes = (deps: { relations: RelationsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { relations } = deps;
    const tenantOf = (request: Parameters<typeof companyActor>[0]) => companyActor(request).tenant;

    app.put(
      '/updateIndices',
      {
        config: writeAuth,
        schema: { tags, description: 'Sets the index (display order) of several relations; every uuid must exist, or nothing changes.', body: updateIndicesBodySchema, response: { 200: envelope(z.array(relationSchema)), ...errorResponses(400, 401, 403, 404, 409) } },
      },
      async (request) => ok(await app.audit.all(tenantOf(request), await relations.updateIndices(commandContext(request), request.body), toRelation), 'updated'),
    );

    app.post(
      '/index',
      { config: readAuth, schema: { tags, description: `Relations of the selected company. ${listKeys}`, body: indexBody, response: { 200: listEnvelope(relationSchema), ...errorResponses(400, 401, 403) } } },
      async (request) => {
        const { rows, total } = await relations.list(tenantOf(request), { kind: 'all' }, request.body);
        return page(await app.audit.all(tenantOf(request), rows, toRelation), total, request.body.page, request.body.limit);
      },
    );

    app.post(
      '/index/:objectUuid',
      {
        config: readAuth,
        schema: { tags, description: `Relations where the object is origin or target. ${listKeys}`, params: objectParams, body: indexBody, response: { 200: listEnvelope(relationSchema), ...errorResponses(400, 401, 403, 404) } },
      },
      async (request) => {
        const { rows, total } = await relations.list(tenantOf(request), { kind: 'object', objectUuid: request.params.objectUuid }, request.body);
        return page(await app.audit.all(tenantOf(request), rows, toRelation), total, request.body.page, request.body.limit);
      },
    );

    app.post(
      '/index/:fromObjectUuid/:toObjectUuid',
      {
        config: readAuth,
        schema: {
          tags,
          description: `Relations from one object to another, and BIDIRECTIONAL ones the other way round. ${listKeys}`,
          params: z.object({ fromObjectUuid: z.uuid(), toObjectUuid: z.uuid() }),
          body: indexBody,
          response: { 200: listEnvelope(relationSchema), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const { fromObjectUuid, toObjectUuid } = request.params;
        const { rows, total } = await relations.list(tenantOf(request), { kind: 'between', fromObjectUuid, toObjectUuid }, request.body);
        return page(await app.audit.all(tenantOf(request), rows, toRelation), total, request.body.page, request.body.limit);
      },
    );

    app.post(
      '/:objectUuid',
      {
        config: writeAuth,
        schema: {
          tags,
          description: 'Creates a relation from the object (201), or updates the one of the same name (200). Name, target object and cardinality are immutable.',
          params: objectParams,
          body: relationBodySchema,
          response: { 200: envelope(relationSchema), 201: envelope(relationSchema), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const { relation, created } = await relations.upsert(commandContext(request), request.params.objectUuid, request.body);
        reply.code(created ? 201 : 200);
        return ok(await app.audit.one(tenantOf(request), relation, toRelation), created ? 'created' : 'updated');
      },
    );

    app.get(
      '/:relationUuid',
      { config: readAuth, schema: { tags, description: 'One relation, soft-deleted or not.', params: relationParams, response: { 200: envelope(relationSchema), ...errorResponses(401, 403, 404) } } },
      async (request) => ok(await app.audit.one(tenantOf(request), await relations.get(tenantOf(request), request.params.relationUuid), toRelation)),
    );

    app.get(
      '/:relationUuid/:objectUuid',
      {
        config: readAuth,
        schema: {
          tags,
          description: "The relation as one of its objects sees it: its end's name, the cardinality from that end, whether it can be walked from there, and the object at the other end.",
          params: z.object({ relationUuid: z.uuid(), objectUuid: z.uuid() }),
          response: { 200: envelope(relationFromObjectSchema), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const found = await relations.fromObject(tenantOf(request), request.params.relationUuid, request.params.objectUuid);
        return ok(await app.audit.one(tenantOf(request), found.relation, (_, actors) => toRelationFromObject(found, actors)));
      },
    );

    app.delete(
      '/:relationUuid',
      {
        config: writeAuth,
        schema: { tags, description: 'Soft-deletes the relation: its connections are hidden until it is restored.', params: relationParams, response: { 200: envelope(relationSchema), ...errorResponses(401, 403, 404, 409) } },
      },
      async (request) => ok(await app.audit.one(tenantOf(request), await relations.remove(commandContext(request), request.params.relationUuid), toRelation), 'deleted'),
    );

    app.post(
      '/:relationUuid/restore',
      { config: writeAuth, schema: { tags, description: 'Restores a soft-deleted relation and its connections.', params: relationParams, response: { 200: envelope(relationSchema), ...errorResponses(401, 403, 404, 409) } } },
      async (request) => ok(await app.audit.one(tenantOf(request), await relations.restore(commandContext(request), request.params.relationUuid), toRelation), 'restored'),
    );

    app.delete(
      '/:relationUuid/permanent',
      {
        config: writeAuth,
        schema: {
          tags,
          description: 'Hard-deletes a soft-deleted relation and its connections (spec 3). A relation that is not soft-deleted answers 409 and stays.',
          params: relationParams,
          response: { 200: dataString, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => {
        await relations.purge(commandContext(request), request.params.relationUuid);
        return ok('deleted permanently', 'deleted');
      },
    );
  };
