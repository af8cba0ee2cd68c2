import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { liveAt } from '../../aggregates/page/page.publication.js';
import { livePreviews, publicPageByUuid } from '../../read-models/page-previews.queries.js';
import { publicationOf } from '../../read-models/pages.queries.js';
import type { Db } from '../db/db.js';
import { listEnvelope, page } from '../http/envelope.js';
import { pageOffset, paginationBody } from '../http/pagination.js';
import { MAX_PATH_PARAM_LENGTH } from '../http/path-params.js';
import { errorResponses } from '../schema/http-common.js';
import { seconds } from './pages.service.js';
import { makeAdmission } from './public-access.js';

/** What each layout shows of a preview; a protected page shows its path only. */
export const previewLayouts = { card: ['title', 'excerpt', 'image'], list: ['title', 'excerpt'], compact: ['title'] } as const;
type Layout = keyof typeof previewLayouts;

const previewSchema = z
  .object({
    uuid: z.string(),
    rootSlug: z.string(),
    slug: z.string(),
    locale: z.string(),
    protected: z.boolean(),
    title: z.string().nullable().optional(),
    excerpt: z.string().nullable().optional(),
    image: z.string().nullable().optional(),
  })
  .meta({ id: 'PagePreview' });

const unavailable = () => notFound('Published webpage', 'requested');

/**
 * `POST /webpages/public/previews/{pageUuid}/{componentUuid}/{layout}` (spec 4.4): the paginated
 * previews a listing component of a live page shows. The component is a module of the page's
 * current document (its id); it lists the live pages of the object its `object` field names
 * (default: the page's own object) in the page's environment and locale, newest first, the page
 * itself left out. `layout` picks the fields: card (title, excerpt, image), list (title,
 * excerpt), compact (title). The page's protection applies as on the public page read.
 */
export const previewsRoutes = (deps: { db: Db; passwordLogN: number }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    const admitted = makeAdmission(deps);
    app.post(
      '/webpages/public/previews/:pageUuid/:componentUuid/:layout',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['webpages'],
          description: 'Paginated previews of the pages a listing component (a module of a live page) shows; layout card, list or compact. Same 404 for a page that is not live, a missing component and another company.',
          params: z.object({
            pageUuid: z.uuid(),
            componentUuid: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/).max(MAX_PATH_PARAM_LENGTH).describe("The id of a module on the page's document"),
            layout: z.enum(Object.keys(previewLayouts) as [Layout, ...Layout[]]),
          }),
          querystring: z.object({ subdomain: z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/).describe("The company's subdomain (spec 2.10)") }),
          body: paginationBody,
          response: { 200: listEnvelope(previewSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const { pageUuid, componentUuid, layout } = request.params;
        const now = seconds(Date.now());
        const source = await publicPageByUuid(db, request.query.subdomain, pageUuid);
        if (!source || !liveAt(publicationOf(source), now)) throw unavailable();
        const component = source.document.modules.find((m) => m.id === componentUuid && !m.hidden);
        if (!component) throw unavailable();
        await admitted(source, request.headers);
        const object = typeof component.fields.object === 'string' && component.fields.object !== '' ? component.fields.object : source.object_name;
        const { limit, page: n } = request.body;
        const { rows, total } = await livePreviews(db, { tenant: source.tenant, environment: source.environment, locale: source.locale, objectName: object, exceptPage: source.page_uuid, nowSeconds: now }, limit, pageOffset(n, limit));
        const shown = previewLayouts[layout] as readonly string[];
        const items = rows.map((r) => {
          const item: z.infer<typeof previewSchema> = { uuid: r.uuid, rootSlug: r.root_slug, slug: r.slug, locale: r.locale, protected: r.protected };
          for (const f of ['title', 'excerpt', 'image'] as const) if (shown.includes(f)) item[f] = r.protected ? null : (r[f] ?? null);
          return item;
        });
        return page(items, total, n, limit);
      },
    );
  };
