import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import type { PagePatchInput } from '../../aggregates/page/page.patch.js';
import { loadRecordObject } from '../../read-models/records.queries.js';
import { templateOf } from '../../read-models/pages.queries.js';
import { traitOf } from '../../read-models/traits.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import type { Db } from '../db/db.js';
import { envelope, ok } from '../http/envelope.js';
import { errorResponses } from '../schema/http-common.js';
import type { Modules } from './modules.routes.js';
import { cmsPageSchema, localeSchema } from './pages.schemas.js';
import { viewOfState, type PagesService } from './pages.service.js';

const NIL = '00000000-0000-0000-0000-000000000000';
const params = z.object({ objectName: z.string().min(1).max(63), environment: z.string().min(1).max(63) });
const moduleInput = z.object({ id: z.string().max(100).optional(), module: z.string().min(1).max(200), fields: z.record(z.string(), z.unknown()).optional(), hidden: z.boolean().optional() });
const body = z
  .strictObject({
    locale: localeSchema.optional(),
    title: z.string().min(1).max(300).optional(),
    excerpt: z.string().max(2000).optional(),
    seo: z.record(z.string().max(100), z.string().max(2000).nullable()).optional(),
    css: z.string().max(100_000).optional(),
    headJs: z.string().max(100_000).optional(),
    bodyJs: z.string().max(100_000).optional(),
    modules: z.array(moduleInput).max(500).optional().describe('Replaces the modules'),
  })
  .meta({ id: 'WebpageTemplate' });

/**
 * Template webpages (spec 4.4, 6.5): one per object, environment and locale, a page stream with
 * `template` set and no record. Every create or change appends `PageTemplateChanged` in the same
 * append, which webhooks can subscribe to.
 */
export const templatesRoutes = (deps: { db: Db; pages: PagesService; modules: Modules }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, pages, modules } = deps;

    async function objectWithPage(tenant: string, objectName: string) {
      const object = await loadRecordObject(db, tenant, objectName);
      if (!object) throw notFound('Object', objectName);
      if (!(await traitOf(db, tenant, object.objectUuid, 'Page'))) {
        throw invalid('params.objectName', `the object ${objectName} has no Page trait`, `Add the Page trait first: POST /api/v2/traits/${object.objectUuid}/Page`, 'RELATION_NOT_ALLOWED');
      }
      return object;
    }

    app.get(
      '/webpages/template/:objectName/:environment',
      { config: { auth: {} }, schema: { tags: ['webpages'], description: 'The template webpage of an object in an environment.', params, querystring: z.object({ locale: localeSchema.optional() }), response: { 200: envelope(cmsPageSchema), ...errorResponses(401, 403, 404) } } },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const object = await loadRecordObject(db, tenant, request.params.objectName);
        const env = object ? await pages.environmentOf(tenant, request.params.environment, 'params.environment').catch(() => null) : null;
        const row = object && env ? await templateOf(db, tenant, object.objectUuid, env.key, request.query.locale ?? env.html_lang) : null;
        if (!row) throw notFound('Template webpage', `of ${request.params.objectName} in ${request.params.environment}`);
        return ok(await pages.dto(pages.viewOfRow(row), tenant));
      },
    );

    app.post(
      '/webpages/template/:objectName/:environment',
      {
        config: { auth: { scopes: ['webpages:write'] } },
        schema: { tags: ['webpages'], description: 'Creates or updates the template webpage of an object in an environment; appends PageTemplateChanged.', params, body, response: { 200: envelope(cmsPageSchema), 201: envelope(cmsPageSchema), ...errorResponses(400, 401, 403, 404) } },
      },
      async (request, reply) => {
        const context = commandContext(request);
        const { tenant } = context;
        const object = await objectWithPage(tenant, request.params.objectName);
        const env = await pages.environmentOf(tenant, request.params.environment, 'params.environment');
        const b = request.body;
        const locale = b.locale ?? env.html_lang;
        const existing = await templateOf(db, tenant, object.objectUuid, env.key, locale);
        const fields = Object.fromEntries((['title', 'excerpt', 'css', 'headJs', 'bodyJs'] as const).filter((k) => b[k] !== undefined).map((k) => [k, b[k]]));
        const patches: PagePatchInput[] = [
          ...(Object.keys(fields).length ? [{ op: 'setPage', fields }] : []),
          ...(b.seo ? [{ op: 'setSeo', seo: b.seo }] : []),
          ...(b.modules ? [{ op: 'replaceModules', modules: b.modules }] : []),
        ];
        let pageUuid = existing?.page_uuid;
        if (!pageUuid) {
          pageUuid = randomUUID();
          await pages.run(
            tenant,
            pageUuid,
            {
              type: 'CreatePage',
              info: { pageUuid, recordUuid: NIL, objectUuid: object.objectUuid, objectName: object.name, environment: env.key, locale, template: true },
              title: b.title ?? `${object.label} template`,
              slug: `template-${pageUuid.slice(0, 8)}`,
              protection: { type: 'none' },
            },
            context,
          );
          reply.code(201);
        }
        const freshIds = Array.from({ length: b.modules?.length ?? 0 }, () => randomUUID());
        const handled = await pages.run(tenant, pageUuid, { type: 'PatchPage', patches, freshIds, catalogue: await modules.catalogue(tenant, context.userUuid) }, context);
        return ok(await pages.dto(viewOfState(handled.state), tenant), existing ? 'updated' : 'created');
      },
    );
  };
