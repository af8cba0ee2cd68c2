import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { pageOffset, paginationBody } from '../http/pagination.js';
import { errorResponses } from '../schema/http-common.js';
import { toHistoryEntry, type PageHistory } from './pages.history.js';
import { cmsPageSchema, createPageBodySchema, historyEntrySchema, localeSchema, patchBodySchema, updatePageBodySchema } from './pages.schemas.js';
import type { PagesService } from './pages.service.js';
import { scheduleTime } from './schedule-time.js';

const tags = ['webpages'];
const read = { auth: {} };
const write = { auth: { scopes: ['webpages:write' as const] } };
const byUuid = z.object({ uuid: z.uuid() });
const byRecord = z.object({ recordUuid: z.uuid() });
const where = z.object({ locale: localeSchema, environment: z.string().min(1).max(63).optional().describe('Environment key (default: the default environment)') });
const scheduleBody = z.object({ publishAt: z.unknown().optional(), unpublishAt: z.unknown().optional() }).nullable().optional();
const scheduleQuery = z.object({ publishAt: z.string().max(30).optional(), unpublishAt: z.string().max(30).optional() });
const errors = errorResponses(400, 401, 403, 404, 409);
/**
 * The module editor's answers are built by `toCmsPage` (typed by `cmsPageSchema`, field by
 * field) from a document the decider made: written as they are, as records are. Checking a whole
 * document (up to 500 modules) against the schema again cost more than the rest of a patch's
 * answer. The schema still documents the route.
 */
const asBuilt = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

/** Webpages (spec 4.3, 4.4) behind login: create, read, change, publish, and the module editor with its history. */
export const pagesRoutes = (deps: { pages: PagesService; history: PageHistory }): FastifyPluginAsyncZod =>
  async (app) => {
    const { pages, history } = deps;

    app.post('/webpages', { config: write, schema: { tags, description: 'Creates the webpage of a record whose object has the Page trait.', body: createPageBodySchema, response: { 201: envelope(cmsPageSchema), ...errors } } }, async (request, reply) => {
      reply.code(201);
      return ok(await pages.create(commandContext(request), request.body), 'created');
    });

    app.get(
      '/webpages/:uuid',
      { config: read, schema: { tags, params: byUuid, querystring: z.object({ smartened: z.enum(['true', 'false']).optional() }), response: { 200: envelope(cmsPageSchema), ...errors } } },
      async (request) => ok(await pages.get(companyActor(request).tenant, request.params.uuid, request.query.smartened === 'true')),
    );

    app.put(
      '/webpages/:uuid',
      { config: write, schema: { tags, description: 'Changes title, slug, excerpt, SEO, CSS, scripts (one new document revision) and protection.', params: byUuid, body: updatePageBodySchema, response: { 200: envelope(cmsPageSchema), ...errors } } },
      async (request) => ok(await pages.update(commandContext(request), request.params.uuid, request.body), 'updated'),
    );

    for (const action of ['publish', 'unpublish'] as const) {
      const name = action === 'publish' ? 'publishAt' : 'unpublishAt';
      app.put(
        `/webpages/:uuid/${action}`,
        {
          config: write,
          schema: { tags, description: `${action === 'publish' ? 'Publishes' : 'Unpublishes'} now, or at \`${name}\` (epoch seconds, body or query).`, params: byUuid, body: scheduleBody, querystring: scheduleQuery, response: { 200: envelope(cmsPageSchema), ...errors } },
        },
        async (request) => {
          const at = scheduleTime(name, request.body, request.query);
          return ok(await pages.publish(commandContext(request), request.params.uuid, { [name]: at }, action === 'publish'), action === 'publish' ? 'published' : 'unpublished');
        },
      );
    }

    app.get(
      '/webpages/v2/pages/:recordUuid',
      { config: read, schema: { tags, description: "The record's page in an environment and locale, for the editor.", params: byRecord, querystring: where, response: { 200: envelope(cmsPageSchema), ...errors } } },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const row = await pages.pageOf(tenant, request.params.recordUuid, request.query.environment, request.query.locale);
        return ok(await pages.dto(pages.viewOfRow(row), tenant));
      },
    );

    app.post(
      '/webpages/v2/pages/:recordUuid/patch',
      {
        config: write,
        ...asBuilt,
        schema: {
          tags,
          description: 'Applies a batch of patches as one new document revision, whole or not at all; 409 when expectedRevision is not the current revision.',
          params: byRecord,
          querystring: z.object({ environment: z.string().min(1).max(63).optional() }),
          body: patchBodySchema,
          response: { 200: envelope(cmsPageSchema), ...errors },
        },
      },
      async (request) => ok(await pages.patch(commandContext(request), request.params.recordUuid, request.query.environment, request.body), 'patched'),
    );

    app.post(
      '/webpages/v2/pages/:recordUuid/history/index',
      { config: read, schema: { tags, description: "The page's revisions, newest first: who, when, requestId and the ops.", params: byRecord, querystring: where, body: paginationBody, response: { 200: listEnvelope(historyEntrySchema), ...errors } } },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const row = await pages.pageOf(tenant, request.params.recordUuid, request.query.environment, request.query.locale);
        const { limit, page: n } = request.body;
        const { rows, total } = await history.list(tenant, row.page_uuid, limit, pageOffset(n, limit));
        return page(rows.map(toHistoryEntry), total, n, limit);
      },
    );

    const byIndex = byRecord.extend({ index: z.coerce.number().int().min(0).max(2_147_483_647) });
    app.get(
      '/webpages/v2/pages/:recordUuid/history/:index',
      {
        config: read,
        schema: {
          tags,
          description: 'The document as it was at a history index.',
          params: byIndex,
          querystring: where,
          response: { 200: envelope(z.object({ index: z.number().int(), document: cmsPageSchema.shape.document })), ...errors },
        },
      },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const row = await pages.pageOf(tenant, request.params.recordUuid, request.query.environment, request.query.locale);
        return ok({ index: request.params.index, document: await history.documentOf(tenant, row.page_uuid, request.params.index) });
      },
    );

    app.post(
      '/webpages/v2/pages/:recordUuid/history/:index/restore',
      { config: write, schema: { tags, description: 'Makes the document equal to the one at the history index, as a new revision.', params: byIndex, querystring: where, response: { 200: envelope(cmsPageSchema), ...errors } } },
      async (request) => ok(await history.restore(commandContext(request), request.params.recordUuid, request.query.environment, request.query.locale, request.params.index), 'restored'),
    );
  };
