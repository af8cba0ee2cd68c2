import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { errorResponses } from '../schema/http-common.js';
import { cmsPageSchema, localeSchema, templateBodySchema as body } from './pages.schemas.js';
import type { TemplatesService } from './templates.service.js';

const params = z.object({ objectName: z.string().min(1).max(63), environment: z.string().min(1).max(63) });

/**
 * Template webpages (spec 4.4, 6.5): one per object, environment and locale, a page stream with
 * `template` set and no record. Every create or change appends `PageTemplateChanged` in the same
 * append, which webhooks can subscribe to.
 */
export const templatesRoutes = (deps: { templates: TemplatesService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { templates } = deps;

    app.get(
      '/webpages/template/:objectName/:environment',
      { config: { auth: {} }, schema: { tags: ['webpages'], description: 'The template webpage of an object in an environment.', params, querystring: z.object({ locale: localeSchema.optional() }), response: { 200: envelope(cmsPageSchema), ...errorResponses(401, 403, 404) } } },
      async (request) => ok(await templates.get(companyActor(request).tenant, request.params.objectName, request.params.environment, request.query.locale)),
    );

    app.post(
      '/webpages/template/:objectName/:environment',
      {
        config: { auth: { scopes: ['webpages:write'] } },
        schema: { tags: ['webpages'], description: 'Creates or updates the template webpage of an object in an environment; appends PageTemplateChanged.', params, body, response: { 200: envelope(cmsPageSchema), 201: envelope(cmsPageSchema), ...errorResponses(400, 401, 403, 404) } },
      },
      async (request, reply) => {
        const { page, created } = await templates.save(commandContext(request), request.params.objectName, request.params.environment, request.body);
        if (created) reply.code(201);
        return ok(page, created ? 'created' : 'updated');
      },
    );
  };
