import type { PageDocument } from '../aggregates/page/page.document.js';
import type { StoredProtection } from '../aggregates/page/page.events.js';
import type { Sql } from '../ports/sql.js';
import { ROOT_SLUG_SQL } from './cms-environments.queries.js';

export interface PreviewSourceRow {
  tenant: string;
  page_uuid: string;
  object_name: string;
  environment: string;
  locale: string;
  document: PageDocument;
  protection: StoredProtection;
  published: boolean;
  ever_published: boolean;
  publish_at: number | null;
  unpublish_at: number | null;
}

/** A page (never a template) of the company named by its subdomain: what a public preview request starts from. */
export async function publicPageByUuid(sql: Sql, subdomain: string, pageUuid: string): Promise<PreviewSourceRow | null> {
  const [row] = await sql.query<PreviewSourceRow>(
    `select p.tenant, p.page_uuid, p.object_name, p.environment, p.locale, p.document, p.protection, p.published, p.ever_published,
            p.publish_at::float8 as publish_at, p.unpublish_at::float8 as unpublish_at
       from companies c join rm_pages p on p.tenant = c.company_uuid::text and p.page_uuid = $2 and not p.template
      where c.subdomain = $1`,
    [subdomain, pageUuid],
  );
  return row ?? null;
}

export interface PreviewRow {
  uuid: string;
  root_slug: string;
  slug: string;
  locale: string;
  title: string;
  excerpt: string | null;
  image: string | null;
  protected: boolean;
}

/**
 * The previews a listing component shows: the pages of `objectName` live at `nowSeconds` in the
 * environment and locale, other than the page itself, newest first.
 */
export async function livePreviews(sql: Sql, q: { tenant: string; environment: string; locale: string; objectName: string; exceptPage: string; nowSeconds: number }, limit: number, offset: number) {
  const where = `p.tenant = $1 and p.environment = $2 and p.locale = $3 and p.object_name = $4 and p.page_uuid <> $5 and not p.template
      and (p.published or p.publish_at <= $6) and not coalesce(p.unpublish_at <= $6, false)`;
  const params = [q.tenant, q.environment, q.locale, q.objectName, q.exceptPage, q.nowSeconds];
  const rows = await sql.query<PreviewRow>(
    `select p.page_uuid as uuid, ${ROOT_SLUG_SQL} as root_slug, p.slug, p.locale, p.title,
            p.document->>'excerpt' as excerpt, p.document->'seo'->>'image' as image, (p.protection->>'type') <> 'none' as protected
       from rm_pages p join rm_cms_environments e on e.tenant = p.tenant and e.key = p.environment
      where ${where} order by p.created_at desc, p.page_uuid limit $7 offset $8`,
    [...params, limit, offset],
  );
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_pages p where ${where}`, params);
  return { rows, total: count?.n ?? 0 };
}
