import type { MenuItem } from '../aggregates/web-menu/web-menu.schemas.js';
import type { Sql } from '../ports/sql.js';
import { ROOT_SLUG_SQL } from './cms-environments.queries.js';
import type { AuditRow } from './audit-row.js';

export interface WebMenuRow extends AuditRow {
  tenant: string;
  menu_uuid: string;
  name: string;
  label: string;
  environment: string;
  items: MenuItem[];
}

const columns = `tenant, menu_uuid, name, label, environment, items, idx, created_at::float8 as created_at, updated_at::float8 as updated_at,
  deleted_at::float8 as deleted_at, created_by, updated_by, deleted_by, revision`;

/** A web menu of the tenant, deleted or not. */
export async function webMenuByUuid(sql: Sql, tenant: string, menuUuid: string): Promise<WebMenuRow | null> {
  const [row] = await sql.query<WebMenuRow>(`select ${columns} from rm_web_menus where tenant = $1 and menu_uuid = $2`, [tenant, menuUuid]);
  return row ?? null;
}

/** The tenant's web menus (live, or deleted ones), optionally of one environment, by environment and name. */
export async function listWebMenus(sql: Sql, tenant: string, opts: { deleted: boolean; environment: string | null }, limit: number, offset: number): Promise<{ rows: WebMenuRow[]; total: number }> {
  const where = `tenant = $1 and (deleted_at is not null) = $2 and ($3::text is null or environment = $3)`;
  const rows = await sql.query<WebMenuRow>(`select ${columns} from rm_web_menus where ${where} order by environment, name limit $4 offset $5`, [tenant, opts.deleted, opts.environment, limit, offset]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_web_menus where ${where}`, [tenant, opts.deleted, opts.environment]);
  return { rows, total: count?.n ?? 0 };
}

/** The live menus of a company named by its subdomain (public), optionally of one environment and name. */
export async function publicMenus(sql: Sql, subdomain: string, environment: string | null, name: string | null, limit: number, offset: number) {
  const from = `from companies c join rm_web_menus m on m.tenant = c.company_uuid::text`;
  const where = `c.subdomain = $1 and m.deleted_at is null and ($2::text is null or m.environment = $2) and ($3::text is null or m.name = $3)`;
  const rows = await sql.query<{ tenant: string; menu_uuid: string; name: string; label: string; environment: string; items: MenuItem[] }>(
    `select m.tenant, m.menu_uuid, m.name, m.label, m.environment, m.items ${from} where ${where} order by m.environment, m.name limit $4 offset $5`,
    [subdomain, environment, name, limit, offset],
  );
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n ${from} where ${where}`, [subdomain, environment, name]);
  return { rows, total: count?.n ?? 0 };
}

/** Of `pageUuids`, the pages of the tenant live at `nowSeconds`, with the path they are public at. */
export async function livePageLinks(sql: Sql, tenant: string, pageUuids: readonly string[], nowSeconds: number) {
  if (pageUuids.length === 0) return new Map<string, { rootSlug: string; slug: string; locale: string }>();
  const rows = await sql.query<{ page_uuid: string; root_slug: string; slug: string; locale: string }>(
    `select p.page_uuid, ${ROOT_SLUG_SQL} as root_slug, p.slug, p.locale
       from rm_pages p join rm_cms_environments e on e.tenant = p.tenant and e.key = p.environment
      where p.tenant = $1 and p.page_uuid = any($2::uuid[]) and not p.template
        and (p.published or p.publish_at <= $3) and not coalesce(p.unpublish_at <= $3, false)`,
    [tenant, pageUuids, nowSeconds],
  );
  return new Map(rows.map((r) => [r.page_uuid, { rootSlug: r.root_slug, slug: r.slug, locale: r.locale }]));
}

/** Of `pageUuids`, those that are not pages of the tenant (templates count as not). */
export async function missingPages(sql: Sql, tenant: string, pageUuids: readonly string[]): Promise<string[]> {
  if (pageUuids.length === 0) return [];
  const rows = await sql.query<{ page_uuid: string }>('select page_uuid from rm_pages where tenant = $1 and page_uuid = any($2::uuid[]) and not template', [tenant, pageUuids]);
  const found = new Set(rows.map((r) => r.page_uuid));
  return pageUuids.filter((u) => !found.has(u));
}
