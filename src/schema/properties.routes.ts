import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { errorResponses, indexBody, readAuth, writeAuth } from './http-common.js';
import { createPropertyBodySchema, propertySchema, toProperty, updatePropertyBodySchema } from './properties.schemas.js';
import type { PropertiesService } from './properties.service.js';

const tags = ['properties'];
const objectParams = z.object({ objectUuid: z.uuid() });
const params = z.object({ objectUuid: z.uuid(), propertyUuid: z.uuid() });

/** Properties of an object, under /api/v2/objects/{objectUuid}/properties. */
export const propertiesRoutes = (deps: { properties: PropertiesService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { properties } = deps;

    app.post(
      '/:objectUuid/properties',
      {
        config: writeAuth,
        schema: {
          tags,
          description: 'Creates a property. The format must suit the type (see PropertyBody); select and multi-select need options; linked needs relationUuid.',
          params: objectParams,
          body: createPropertyBodySchema,
          response: { 201: envelope(propertySchema), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return ok(await app.audit.one(companyActor(request).tenant, await properties.create(commandContext(request), request.params.objectUuid, request.body), toProperty), 'created');
      },
    );

    app.post(
      '/:objectUuid/properties/index',
      {
        config: readAuth,
        schema: {
          tags,
          description: 'Properties of the object. Filter and sort keys: uuid, name, label, type, format, group, required, unique, createdAt, updatedAt, deletedAt (soft-deleted properties only when a filter names deletedAt).',
          params: objectParams,
          body: indexBody,
          response: { 200: listEnvelope(propertySchema), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const { rows, total } = await properties.list(companyActor(request).tenant, request.params.objectUuid, request.body);
        return page(await app.audit.all(companyActor(request).tenant, rows, toProperty), total, request.body.page, request.body.limit);
      },
    );

    app.get(
      '/:objectUuid/properties/:propertyUuid',
      { config: readAuth, schema: { tags, description: 'One property, soft-deleted or not.', params, response: { 200: envelope(propertySchema), ...errorResponses(401, 403, 404) } } },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await properties.get(companyActor(request).tenant, request.params.objectUuid, request.params.propertyUuid), toProperty)),
    );

    app.put(
      '/:objectUuid/properties/:propertyUuid',
      {
        config: writeAuth,
        schema: {
          tags,
          description:
            'Changes display options only: label, description, icon, group, option labels, option order, new options. Name, type, format, validation rules and relationUuid are immutable: sending another value is a 400 with a correctionSuggestion.',
          params,
          body: updatePropertyBodySchema,
          response: { 200: envelope(propertySchema), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await properties.update(commandContext(request), request.params.objectUuid, request.params.propertyUuid, request.body), toProperty), 'updated'),
    );

    app.delete(
      '/:objectUuid/properties/:propertyUuid',
      {
        config: writeAuth,
        schema: { tags, description: "Soft-deletes the property: records hide its values until it is restored (the values are kept).", params, response: { 200: envelope(propertySchema), ...errorResponses(401, 403, 404, 409) } },
      },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await properties.remove(commandContext(request), request.params.objectUuid, request.params.propertyUuid), toProperty), 'deleted'),
    );

    app.post(
      '/:objectUuid/properties/:propertyUuid/restore',
      {
        config: writeAuth,
        schema: { tags, description: 'Restores a soft-deleted property (spec 4.7); returns the restored property.', params, response: { 200: envelope(propertySchema), ...errorResponses(401, 403, 404, 409) } },
      },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await properties.restore(commandContext(request), request.params.objectUuid, request.params.propertyUuid), toProperty), 'restored'),
    );
  };
