import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { liveAt } from '../../aggregates/page/page.publication.js';
import { pageDocumentSchema } from '../../aggregates/page/page.document.js';
import { walkItems } from '../../aggregates/web-menu/web-menu.schemas.js';
import { companyOfSite, publishedRecords } from '../../read-models/content.queries.js';
import type { CompanyRow } from '../../read-models/companies.queries.js';
import { objectByName } from '../../read-models/objects.queries.js';
import { liveSlugs, publicationOf, publicPageBySlug } from '../../read-models/pages.queries.js';
import { traitOf } from '../../read-models/traits.queries.js';
import { livePageLinks, publicMenus } from '../../read-models/web-menus.queries.js';
import { publicSettingsSchema, toPublicSettings } from '../companies/companies.schemas.js';
import type { Db } from '../db/db.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { pageOffset } from '../http/pagination.js';
import { MAX_PATH_PARAM_LENGTH } from '../http/path-params.js';
import { errorResponses } from '../schema/http-common.js';
import { localeSchema } from '../webpages/pages.schemas.js';
import { makeAdmission } from '../webpages/public-access.js';
import { publicMenuSchema, resolve as publicMenuItems } from '../webpages/public-menus.routes.js';
import { CONTENT_MAX_AGE, sendCached } from './content-cache.js';

const SUBDOMAIN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** The site segment that says "the company is the one whose custom domain is this request's Host". */
export const HOST_SITE = '_';
const SLUG = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/).max(MAX_PATH_PARAM_LENGTH);
const ENV = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/);
const seconds = (ms: number) => Math.floor(ms / 1000);
const siteParams = z.object({ site: z.string().max(MAX_PATH_PARAM_LENGTH).describe(`A company subdomain, a custom domain (up to ${MAX_PATH_PARAM_LENGTH} characters; a longer one by ${HOST_SITE}) the company registers (settings.customDomain), or ${HOST_SITE}: the request's Host header names the custom domain`) });
const paging = { page: z.coerce.number().int().min(0).max(100_000).default(0), limit: z.coerce.number().int().min(1).max(100).default(25) };
const tags = ['content API (public)'];
const noSite = () => notFound('Site', 'requested');
const unavailable = () => notFound('Published webpage', 'requested');

const contentPageSchema = z
  .object({
    uuid: z.string(),
    recordUuid: z.string(),
    environment: z.string(),
    rootSlug: z.string(),
    locale: z.string(),
    slug: z.string(),
    title: z.string(),
    document: pageDocumentSchema,
    protected: z.boolean(),
    updatedAt: z.number(),
  })
  .meta({ id: 'ContentPage' });
const slugItemSchema = z.object({ uuid: z.string(), environment: z.string(), rootSlug: z.string(), locale: z.string(), slug: z.string(), title: z.string().nullable(), protected: z.boolean() }).meta({ id: 'ContentSlug' });
const contentRecordSchema = z
  .object({ uuid: z.string(), pageUuid: z.string(), environment: z.string(), rootSlug: z.string(), locale: z.string(), slug: z.string(), title: z.string(), seo: z.record(z.string(), z.unknown()).describe("The page's SEO metadata (title, excerpt, image, ...)"), updatedAt: z.number() })
  .meta({ id: 'ContentRecord' });

/** The host a request was sent to: lowercase, without its port; null when it is no host name. */
function hostOf(request: FastifyRequest): string | null {
  const raw = String(request.headers['x-forwarded-host'] ?? request.headers.host ?? '').split(',')[0]!.trim().toLowerCase().replace(/:\d{1,5}$/, '');
  return HOSTNAME.test(raw) ? raw : null;
}

/**
 * The content API (spec 1.19, docs/content-api.md): a website runtime's read-only view of one
 * company's published content, no login: public settings, the slug map, pages by slug and
 * locale, menus, and the published records of Page-trait objects. Every input hostile, rate
 * limited; every answer with an ETag, Cache-Control and 304s. It reads the CMS's read models and
 * applies the public page route's rules (liveAt, makeAdmission, the live menu items): drafts,
 * scheduled, ended and protected content is a 404 (a protected page reads with its password or
 * a member's token, as on GET /webpages/public/{rootSlug}/{slug}).
 */
export const contentRoutes = (deps: { db: Db; passwordLogN: number; rateLimitMax: number }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    const admitted = makeAdmission(deps);
    const config = { auth: 'public' as const, rateLimit: { max: deps.rateLimitMax, timeWindow: 60_000 } };

    async function siteOf(request: FastifyRequest): Promise<CompanyRow> {
      const site = (request.params as { site: string }).site.toLowerCase();
      const name = site === HOST_SITE ? hostOf(request) : SUBDOMAIN.test(site) || HOSTNAME.test(site) ? site : null;
      const company = name ? await companyOfSite(db, name) : null;
      if (!company) throw noSite();
      return company;
    }

    app.get(
      '/:site/settings',
      { config, schema: { tags, description: "The company's public settings (spec 2.10).", params: siteParams, response: { 200: envelope(publicSettingsSchema), 304: z.null(), ...errorResponses(404, 429) } } },
      async (request, reply) => sendCached(request, reply, ok(toPublicSettings(await siteOf(request))), { maxAge: CONTENT_MAX_AGE }),
    );

    app.get(
      '/:site/pages',
      {
        config,
        schema: {
          tags,
          description: "The slug map: the company's pages live now, by environment, locale and slug (a protected page shows its slug only).",
          params: siteParams,
          querystring: z.object({ environment: ENV.optional(), ...paging }),
          response: { 200: listEnvelope(slugItemSchema), 304: z.null(), ...errorResponses(400, 404, 429) },
        },
      },
      async (request, reply) => {
        const company = await siteOf(request);
        const { environment, limit } = request.query;
        const n = request.query.page;
        const { rows, total } = await liveSlugs(db, company.subdomain, environment ?? null, seconds(Date.now()), limit, pageOffset(n, limit));
        const items = rows.map((r) => ({ uuid: r.uuid, environment: r.environment, rootSlug: r.root_slug, locale: r.locale, slug: r.slug, title: r.protected ? null : r.title, protected: r.protected }));
        return sendCached(request, reply, page(items, total, n, limit), { maxAge: CONTENT_MAX_AGE });
      },
    );

    app.get(
      '/:site/pages/:rootSlug/:slug',
      {
        config,
        schema: {
          tags,
          description: "A page live now, by its environment's slug prefix (or key), its slug and a locale (default: the environment's htmlLang). Protected pages want X-Page-Password or a member's bearer token.",
          params: siteParams.extend({ rootSlug: SLUG, slug: SLUG }),
          querystring: z.object({ locale: localeSchema.optional() }),
          response: { 200: envelope(contentPageSchema), 304: z.null(), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request, reply) => {
        const company = await siteOf(request);
        const now = seconds(Date.now());
        const row = await publicPageBySlug(db, company.subdomain, request.params.rootSlug, request.params.slug, request.query.locale ?? null);
        const publication = row && publicationOf(row);
        if (!row || !publication || !liveAt(publication, now)) throw unavailable();
        await admitted(row, request.headers);
        const body = ok({
          uuid: row.page_uuid, recordUuid: row.record_uuid, environment: row.environment, rootSlug: request.params.rootSlug, locale: row.locale, slug: row.slug,
          title: row.title, document: row.document, protected: row.protection.type !== 'none', updatedAt: row.updated_at,
        });
        // A shared cache keeps a page no longer than it stays live.
        const left = publication.unpublishAt === null ? CONTENT_MAX_AGE : Math.min(CONTENT_MAX_AGE, publication.unpublishAt - now);
        return sendCached(request, reply, body, row.protection.type === 'none' ? { maxAge: left } : 'private');
      },
    );

    app.get(
      '/:site/menus',
      {
        config,
        schema: {
          tags,
          description: "The company's web menus; page items link live pages only (others are left out with their children).",
          params: siteParams,
          querystring: z.object({ environment: ENV.optional(), name: z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/).optional(), ...paging }),
          response: { 200: listEnvelope(publicMenuSchema), 304: z.null(), ...errorResponses(400, 404, 429) },
        },
      },
      async (request, reply) => {
        const company = await siteOf(request);
        const { environment, name, limit } = request.query;
        const n = request.query.page;
        const { rows, total } = await publicMenus(db, company.subdomain, environment ?? null, name ?? null, limit, pageOffset(n, limit));
        const pageUuids = [...new Set(rows.flatMap((r) => walkItems(r.items).flatMap((x) => (x.item.pageUuid ? [x.item.pageUuid] : []))))];
        const links = await livePageLinks(db, company.company_uuid, pageUuids, seconds(Date.now()));
        const items = rows.map((r) => ({ uuid: r.menu_uuid, name: r.name, label: r.label, environment: r.environment, items: publicMenuItems(r.items, links) }));
        return sendCached(request, reply, page(items, total, n, limit), { maxAge: CONTENT_MAX_AGE });
      },
    );

    app.get(
      '/:site/records/:objectName',
      {
        config,
        schema: {
          tags,
          description: "The published records of a Page-trait object: records whose page is live now and not protected, with their page's place and SEO (no record values: what a page shows is its document), by environment, locale and slug.",
          params: siteParams.extend({ objectName: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/).max(63) }),
          querystring: z.object({ environment: ENV.optional(), locale: localeSchema.optional(), ...paging }),
          response: { 200: listEnvelope(contentRecordSchema), 304: z.null(), ...errorResponses(400, 404, 429) },
        },
      },
      async (request, reply) => {
        const company = await siteOf(request);
        const object = await objectByName(db, company.company_uuid, request.params.objectName);
        const isPage = object && object.deleted_at === null && (await traitOf(db, company.company_uuid, object.object_uuid, 'Page'));
        if (!object || !isPage) throw notFound('Page object', request.params.objectName);
        const { environment, locale, limit } = request.query;
        const n = request.query.page;
        const now = seconds(Date.now());
        const { rows, total } = await publishedRecords(db, company.company_uuid, object.object_uuid, { environment: environment ?? null, locale: locale ?? null, nowSeconds: now, limit, offset: pageOffset(n, limit) });
        const items = rows
          .filter((r) => liveAt(publicationOf(r), now))
          .map((r) => ({ uuid: r.record_uuid, pageUuid: r.page_uuid, environment: r.environment, rootSlug: r.root_slug, locale: r.locale, slug: r.slug, title: r.title, seo: r.seo, updatedAt: r.updated_at }));
        return sendCached(request, reply, page(items, total, n, limit), { maxAge: CONTENT_MAX_AGE });
      },
    );
  };
