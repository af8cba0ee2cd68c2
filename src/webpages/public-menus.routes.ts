import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { MenuItem } from '../../aggregates/web-menu/web-menu.schemas.js';
import { walkItems } from '../../aggregates/web-menu/web-menu.schemas.js';
import { livePageLinks, publicMenus } from '../../read-models/web-menus.queries.js';
import type { Db } from '../db/db.js';
import { listEnvelope, page } from '../http/envelope.js';
import { pageOffset } from '../http/pagination.js';
import { errorResponses } from '../schema/http-common.js';
import { seconds } from './pages.service.js';

const SUBDOMAIN = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
const ENV = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/);

interface PublicItem {
  label: string;
  href: string | null;
  pageUuid: string | null;
  locale: string | null;
  children: PublicItem[];
}

const publicItemSchema = z.object({ label: z.string(), href: z.string().nullable(), pageUuid: z.string().nullable(), locale: z.string().nullable(), children: z.array(z.unknown()) }).meta({ id: 'PublicWebMenuItem' });
export const publicMenuSchema = z.object({ uuid: z.string(), name: z.string(), label: z.string(), environment: z.string(), items: z.array(publicItemSchema) }).meta({ id: 'PublicWebMenu' });

/** The items as the public sees them: a page item links the page while it is live and is left out (with its children) otherwise. */
export function resolve(items: readonly MenuItem[], links: Map<string, { rootSlug: string; slug: string; locale: string }>): PublicItem[] {
  return items.flatMap((item): PublicItem[] => {
    const children = resolve(item.children ?? [], links);
    if (item.pageUuid !== undefined) {
      const link = links.get(item.pageUuid);
      return link ? [{ label: item.label, href: `/${link.rootSlug}/${link.slug}`, pageUuid: item.pageUuid, locale: link.locale, children }] : [];
    }
    return [{ label: item.label, href: item.url ?? null, pageUuid: null, locale: null, children }];
  });
}

/** `GET /webpages/public/getMenus` (spec 4.4): a company's live web menus, no login, rate limited by the global limiter. */
export const publicMenusRoutes = (deps: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    app.get(
      '/webpages/public/getMenus',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['webpages'],
          description: "The company's web menus (not deleted), by environment and name. Page items carry the page's public path while it is live; items of pages that are not live are left out.",
          querystring: z.object({
            subdomain: SUBDOMAIN.describe("The company's subdomain (spec 2.10)"),
            environment: ENV.optional(),
            name: z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/).optional(),
            page: z.coerce.number().int().min(0).max(100_000).default(0),
            limit: z.coerce.number().int().min(1).max(100).default(20),
          }),
          response: { 200: listEnvelope(publicMenuSchema), ...errorResponses(400, 429) },
        },
      },
      async (request) => {
        const { subdomain, environment, name, limit } = request.query;
        const n = request.query.page;
        const { rows, total } = await publicMenus(db, subdomain, environment ?? null, name ?? null, limit, pageOffset(n, limit));
        const tenant = rows[0]?.tenant;
        const pageUuids = [...new Set(rows.flatMap((r) => walkItems(r.items).flatMap((x) => (x.item.pageUuid ? [x.item.pageUuid] : []))))];
        const links = tenant ? await livePageLinks(db, tenant, pageUuids, seconds(Date.now())) : new Map();
        return page(rows.map((r) => ({ uuid: r.menu_uuid, name: r.name, label: r.label, environment: r.environment, items: resolve(r.items, links) })), total, n, limit);
      },
    );
  };
