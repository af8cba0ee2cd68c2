import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import { liveAt } from '../../aggregates/page/page.publication.js';
import { documentAt, liveSlugs, publicationAtTime, publicPageBySlug, revisionAtTime, type PageRow } from '../../read-models/pages.queries.js';
import type { Db } from '../db/db.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { pageOffset } from '../http/pagination.js';
import { MAX_PATH_PARAM_LENGTH } from '../http/path-params.js';
import { errorResponses } from '../schema/http-common.js';
import { cmsPageSchema, localeSchema, toCmsPage } from './pages.schemas.js';
import { makeAdmission } from './public-access.js';
import { seconds, viewOfRow } from './pages.service.js';

const SLUG = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/).max(MAX_PATH_PARAM_LENGTH);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const query = z.object({
  subdomain: z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/).describe("The company's subdomain (spec 2.10): how a public request names its company"),
  locale: localeSchema.optional().describe("Default: the environment's htmlLang, else the first locale"),
  asOf: z.string().max(40).optional().describe('An ISO time: the page as it was live then (404 when it was not)'),
});

const unavailable = () => notFound('Published webpage', 'requested');

/**
 * Public webpages (spec 4.4, 5.2): no login, every input hostile, rate limited by the global
 * limiter. A page answers only while published; a draft, a page before its publishAt or after its
 * unpublishAt, another company's page and a missing one are the same 404. The answer carries the
 * document and no record values, protection details, or audit fields.
 */
export const publicPagesRoutes = (deps: { db: Db; passwordLogN: number }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    const admitted = makeAdmission(deps);

    const slugItem = z.object({ uuid: z.string(), environment: z.string(), rootSlug: z.string(), locale: z.string(), slug: z.string(), title: z.string().nullable(), protected: z.boolean() }).meta({ id: 'SlugMapItem' });
    app.get(
      '/webpages/public/getSlugs',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['webpages'],
          description: "The slug map: the company's pages live now, by environment, locale and slug (a protected page's title is left out).",
          querystring: z.object({
            subdomain: query.shape.subdomain,
            environment: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/).optional(),
            page: z.coerce.number().int().min(0).max(100_000).default(0),
            limit: z.coerce.number().int().min(1).max(1000).default(100),
          }),
          response: { 200: listEnvelope(slugItem), ...errorResponses(400, 429) },
        },
      },
      async (request) => {
        const { subdomain, environment, limit } = request.query;
        const n = request.query.page;
        const { rows, total } = await liveSlugs(db, subdomain, environment ?? null, seconds(Date.now()), limit, pageOffset(n, limit));
        return page(rows.map((r) => ({ uuid: r.uuid, environment: r.environment, rootSlug: r.root_slug, locale: r.locale, slug: r.slug, title: r.protected ? null : r.title, protected: r.protected })), total, n, limit);
      },
    );

    app.get(
      '/webpages/public/:rootSlug/:slug',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['webpages'],
          description: "A published page by its environment's slug prefix (or key) and its slug. Protected pages want X-Page-Password or a member's bearer token.",
          params: z.object({ rootSlug: SLUG, slug: SLUG }),
          querystring: query,
          response: { 200: envelope(cmsPageSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const { subdomain, locale, asOf } = request.query;
        let atMs = Date.now();
        if (asOf !== undefined) {
          const parsed = ISO.test(asOf) ? Date.parse(asOf) : NaN;
          if (!Number.isFinite(parsed)) throw invalid('query.asOf', 'query.asOf is not an ISO time', 'Send asOf as an ISO 8601 time, e.g. 2026-05-01T12:00:00Z', 'INVALID_DATE');
          atMs = Math.min(parsed, atMs);
        }
        const row = await publicPageBySlug(db, subdomain, request.params.rootSlug, request.params.slug, locale ?? null);
        if (!row) throw unavailable();
        const view = viewOfRow(row);
        if (asOf === undefined) {
          if (!liveAt(view.publication, seconds(atMs))) throw unavailable();
        } else {
          const publication = await publicationAtTime(db, row.tenant, row.page_uuid, atMs);
          const revision = await revisionAtTime(db, row.tenant, row.page_uuid, atMs);
          const document = revision === null || !liveAt(publication, seconds(atMs)) ? null : await documentAt(db, row.tenant, row.page_uuid, revision);
          if (!document) throw unavailable();
          Object.assign(view, { publication, document });
        }
        await admitted(row, request.headers);
        const dto = toCmsPage(view, seconds(atMs), null, [view.locale]);
        return ok({ ...dto, publishAt: null, unpublishAt: null, published: true, state: 'published' as const });
      },
    );
  };

