import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { flowConfigSchema, pageConfigSchema, tableConfigSchema, traitNameOf, userConfigSchema } from '../../aggregates/trait/trait.schemas.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { dataString, errorResponses, readAuth, writeAuth } from './http-common.js';
import { toTrait, traitBodySchema, traitListQuerySchema, traitSchema } from './traits.schemas.js';
import type { TraitsService } from './traits.service.js';
import { pageOffset } from '../../aggregates/kernel/paging.js';

const tags = ['traits'];
const objectParams = z.object({ objectUuid: z.uuid() });
const params = z.object({ objectUuid: z.uuid(), traitName: z.string().min(1).max(40).describe('Flow, Table, Page (or Webpage) or User; case-insensitive') });

/** Traits (spec 4.9): behaviour given to an object. */
export const traitsRoutes = (deps: { traits: TraitsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { traits } = deps;
    // Keeps the four detail schemas in the OpenAPI components, where TraitDetails points.
    void [flowConfigSchema, tableConfigSchema, pageConfigSchema, userConfigSchema];

    app.get(
      '/:objectUuid',
      {
        config: readAuth,
        schema: { tags, description: 'The traits of the object: page 0 (the first) by default, at most 100 a page (a larger limit is a 400).', params: objectParams, querystring: traitListQuerySchema, response: { 200: listEnvelope(traitSchema), ...errorResponses(400, 401, 403, 404) } },
      },
      async (request) => {
        const { limit } = request.query;
        const n = request.query.page;
        const { rows, total } = await traits.list(companyActor(request).tenant, request.params.objectUuid, limit, pageOffset(n, limit));
        return page(await app.audit.all(companyActor(request).tenant, rows, toTrait), total, n, limit);
      },
    );

    app.get(
      '/:objectUuid/:traitName',
      { config: readAuth, schema: { tags, description: 'One trait of the object; a missing trait is a 404 NOT_FOUND.', params, response: { 200: envelope(traitSchema), ...errorResponses(400, 401, 403, 404) } } },
      async (request) => ok(await app.audit.one(companyActor(request).tenant, await traits.get(companyActor(request).tenant, request.params.objectUuid, traitNameOf(request.params.traitName)), toTrait)),
    );

    app.post(
      '/:objectUuid/:traitName',
      {
        config: writeAuth,
        schema: {
          tags,
          description: 'Creates (201) or replaces (200) the trait. Its details are checked against the object\'s live properties.',
          params,
          body: traitBodySchema,
          response: { 200: envelope(traitSchema), 201: envelope(traitSchema), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const { trait, created } = await traits.configure(commandContext(request), request.params.objectUuid, traitNameOf(request.params.traitName), request.body);
        reply.code(created ? 201 : 200);
        return ok(await app.audit.one(companyActor(request).tenant, trait, toTrait), created ? 'created' : 'updated');
      },
    );

    app.delete(
      '/:objectUuid/:traitName',
      { config: writeAuth, schema: { tags, description: 'Removes the trait from the object.', params, response: { 200: dataString, ...errorResponses(400, 401, 403, 404) } } },
      async (request) => {
        await traits.remove(commandContext(request), request.params.objectUuid, traitNameOf(request.params.traitName));
        return ok('removed', 'deleted');
      },
    );
  };
