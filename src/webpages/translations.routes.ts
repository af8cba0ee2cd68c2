import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PageRow } from '../../read-models/pages.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { dataString, errorResponses } from '../schema/http-common.js';
import { cmsPageSchema, localeSchema } from './pages.schemas.js';
import type { TranslationsService } from './translations.service.js';

const write = { auth: { scopes: ['webpages:write' as const] } };
const errors = errorResponses(400, 401, 403, 404, 409);
const pairParams = z.object({ fromUuid: z.uuid(), toUuid: z.uuid() });

const entry = z.object({ uuid: z.string(), recordUuid: z.string(), locale: z.string(), slug: z.string(), title: z.string() });
const toEntry = (r: PageRow): z.infer<typeof entry> => ({ uuid: r.page_uuid, recordUuid: r.record_uuid, locale: r.locale, slug: r.slug, title: r.title });

/** Translations (spec 4.2, 4.3): pages of different environments linked as translations of each other. */
export const translationsRoutes = (deps: { translations: TranslationsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { translations } = deps;

    for (const method of ['POST', 'DELETE'] as const) {
      app.route({
        method,
        url: '/cms/environments/translations/:fromUuid/link/:toUuid',
        config: write,
        schema: { tags: ['cms'], description: method === 'POST' ? 'Links two pages of different environments as translations.' : 'Removes the link.', params: pairParams, response: { 200: dataString, ...errors } },
        handler: async (request) => {
          const { fromUuid, toUuid } = request.params;
          if (method === 'POST') await translations.link(commandContext(request), fromUuid, toUuid);
          else await translations.unlink(commandContext(request), fromUuid, toUuid);
          return ok(method === 'POST' ? 'linked' : 'unlinked');
        },
      });
    }

    app.get(
      '/cms/environments/translations/:recordUuid',
      {
        config: { auth: {} },
        schema: { tags: ['cms'], description: "A record's pages and the pages linked to them as translations, by environment key.", params: z.object({ recordUuid: z.uuid() }), response: { 200: envelope(z.record(z.string(), z.array(entry))), ...errors } },
      },
      async (request) => {
        const map = await translations.map(companyActor(request).tenant, request.params.recordUuid);
        return ok(Object.fromEntries(Object.entries(map).map(([env, rows]) => [env, rows.map(toEntry)])));
      },
    );

    app.post(
      '/webpages/:uuid/copy/:fromEnvironment/:toEnvironment',
      {
        config: write,
        schema: {
          tags: ['webpages'],
          description: 'Copies a page of environment `fromEnvironment` into `toEnvironment` (same record and locale; document at revision 0, not published). Returns the new page.',
          params: z.object({ uuid: z.uuid(), fromEnvironment: z.string().min(1).max(63), toEnvironment: z.string().min(1).max(63) }),
          response: { 201: envelope(cmsPageSchema), ...errors },
        },
      },
      async (request, reply) => {
        const { uuid, fromEnvironment, toEnvironment } = request.params;
        const created = await translations.copy(commandContext(request), uuid, fromEnvironment, toEnvironment);
        reply.code(201);
        return ok(created, 'created');
      },
    );

    app.post(
      '/webpages/v2/pages/:recordUuid/environments/:key/translate',
      {
        config: write,
        schema: {
          tags: ['webpages'],
          description:
            "Creates the record's page in environment `key` as a copy of its page in `environment` (default: the default environment) and `locale` (default: that environment's htmlLang, else the record's only page there), in `toLocale` (default: the target's htmlLang), and links the two.",
          params: z.object({ recordUuid: z.uuid(), key: z.string().min(1).max(63) }),
          querystring: z.object({ locale: localeSchema.optional(), environment: z.string().min(1).max(63).optional(), toLocale: localeSchema.optional() }),
          response: { 200: envelope(cmsPageSchema), ...errors },
        },
      },
      async (request) => ok(await translations.translate(commandContext(request), request.params.recordUuid, request.params.key, request.query), 'translated'),
    );
  };
