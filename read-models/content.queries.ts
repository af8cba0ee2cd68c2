import type { Sql } from '../ports/sql.js';
import { ROOT_SLUG_SQL } from './cms-environments.queries.js';
import type { CompanyRow } from './companies.queries.js';

/** A custom domain as a company's settings hold it, reduced to its host (no scheme, path or port), lowercase. */
const HOST_OF_SETTING = `lower(regexp_replace(c.settings->>'customDomain', '^[a-zA-Z][a-zA-Z0-9+.-]*://|[:/].*$', '', 'g'))`;

/**
 * The company a content API request names (docs/content-api.md): by its subdomain, or by the
 * custom domain its settings register (`customDomain`, compared by host). Null when none.
 */
export async function companyOfSite(sql: Sql, site: string): Promise<CompanyRow | null> {
  const [row] = await sql.query<CompanyRow>(
    `select c.company_uuid, c.name, c.subdomain, c.settings, c.managed_by, c.copied_from, c.created_by, c.updated_by, c.created_at, c.updated_at, c.revision
       from companies c where c.subdomain = $1 or (position('.' in $1) > 0 and ${HOST_OF_SETTING} = $1)
      order by (c.subdomain = $1) desc limit 1`,
    [site],
  );
  return row ?? null;
}

/** A published record of a Page-trait object: its page's place, publication and SEO (never the record's values: a page shows its document). */
export interface PublishedRecordRow {
  record_uuid: string;
  page_uuid: string;
  environment: string;
  root_slug: string;
  locale: string;
  slug: string;
  title: string;
  published: boolean;
  ever_published: boolean;
  publish_at: number | null;
  unpublish_at: number | null;
  seo: Record<string, unknown>;
  updated_at: number;
}

/**
 * The records of `objectUuid` whose page (not a template, not protected) is live at `nowSeconds`,
 * by environment, locale and slug: the same schedule test as the slug map (`liveSlugs`), which
 * the caller checks again with `liveAt`. Archived records are left out.
 */
export async function publishedRecords(
  sql: Sql,
  tenant: string,
  objectUuid: string,
  o: { environment: string | null; locale: string | null; nowSeconds: number; limit: number; offset: number },
): Promise<{ rows: PublishedRecordRow[]; total: number }> {
  const from = `from rm_pages p join rm_cms_environments e on e.tenant = p.tenant and e.key = p.environment
      join records r on r.tenant = p.tenant and r.uuid = p.record_uuid and r.object_uuid = p.object_uuid and r.deleted_at is null`;
  const where = `p.tenant = $1 and p.object_uuid = $2::uuid and not p.template and (p.protection->>'type') = 'none'
      and ($3::text is null or p.environment = $3) and ($4::text is null or p.locale = $4)
      and (p.published or p.publish_at <= $5) and not coalesce(p.unpublish_at <= $5, false)`;
  const params = [tenant, objectUuid, o.environment, o.locale, o.nowSeconds];
  const rows = await sql.query<PublishedRecordRow>(
    `select p.record_uuid::text as record_uuid, p.page_uuid::text as page_uuid, p.environment, ${ROOT_SLUG_SQL} as root_slug, p.locale, p.slug, p.title,
            p.published, p.ever_published, p.publish_at::float8 as publish_at, p.unpublish_at::float8 as unpublish_at, coalesce(p.document->'seo', '{}'::jsonb) as seo, p.updated_at::float8 as updated_at
       ${from} where ${where} order by p.environment, p.locale, p.slug limit $6 offset $7`,
    [...params, o.limit, o.offset],
  );
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n ${from} where ${where}`, params);
  return { rows, total: count?.n ?? 0 };
}
