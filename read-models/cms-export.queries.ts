import type { PageDocument } from '../aggregates/page/page.document.js';
import type { StoredProtection } from '../aggregates/page/page.events.js';
import type { MenuItem } from '../aggregates/web-menu/web-menu.schemas.js';
import type { ModuleField } from '../aggregates/module/module.schemas.js';
import type { Sql } from '../ports/sql.js';

/** A page as the site export carries it: its place, its current document, protection and publication. */
export interface ExportPageRow {
  page_uuid: string;
  record_uuid: string;
  object_name: string;
  environment: string;
  locale: string;
  document: PageDocument;
  protection: StoredProtection;
  published: boolean;
  publish_at: number | null;
  unpublish_at: number | null;
}

/** The tenant's pages (templates left out), in a stable order. */
export async function sitePages(sql: Sql, tenant: string): Promise<ExportPageRow[]> {
  return sql.query<ExportPageRow>(
    `select page_uuid, record_uuid, object_name, environment, locale, document, protection, published, publish_at::float8 as publish_at, unpublish_at::float8 as unpublish_at
       from rm_pages where tenant = $1 and not template order by environment, locale, slug`,
    [tenant],
  );
}

/** The tenant's translation links, each pair once (the smaller uuid first). */
export async function siteTranslations(sql: Sql, tenant: string): Promise<[string, string][]> {
  const rows = await sql.query<{ a: string; b: string }>('select page_uuid as a, other_uuid as b from rm_page_translations where tenant = $1 and page_uuid < other_uuid order by 1, 2', [tenant]);
  return rows.map((r) => [r.a, r.b]);
}

/** The tenant's live web menus. */
export async function siteMenus(sql: Sql, tenant: string): Promise<{ menu_uuid: string; name: string; label: string; environment: string; items: MenuItem[] }[]> {
  return sql.query('select menu_uuid, name, label, environment, items from rm_web_menus where tenant = $1 and deleted_at is null order by environment, name', [tenant]);
}

/** The tenant's live company module definitions (personal ones left out). */
export async function siteModules(sql: Sql, tenant: string): Promise<{ name: string; label: string; description: string; fields: ModuleField[] }[]> {
  return sql.query('select name, label, description, fields from rm_cms_modules where tenant = $1 and deleted_at is null and owner_uuid is null order by name', [tenant]);
}

/** Of the (environment, name) pairs, those a live menu of the tenant holds. */
export async function menuNamesTaken(sql: Sql, tenant: string, names: readonly { environment: string; name: string }[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await sql.query<{ environment: string; name: string }>(
    `select environment, name from rm_web_menus where tenant = $1 and deleted_at is null and (environment, name) in (select * from unnest($2::text[], $3::text[]))`,
    [tenant, names.map((n) => n.environment), names.map((n) => n.name)],
  );
  return new Set(rows.map((r) => `${r.environment}/${r.name}`));
}

/** Of the (environment, locale, slug) places, those a page of the tenant holds. */
export async function slugsTaken(sql: Sql, tenant: string, places: readonly { environment: string; locale: string; slug: string }[]): Promise<Set<string>> {
  if (places.length === 0) return new Set();
  const rows = await sql.query<{ environment: string; locale: string; slug: string }>(
    `select environment, locale, slug from rm_pages where tenant = $1 and not template and (environment, locale, slug) in (select * from unnest($2::text[], $3::text[], $4::text[]))`,
    [tenant, places.map((p) => p.environment), places.map((p) => p.locale), places.map((p) => p.slug)],
  );
  return new Set(rows.map((r) => `${r.environment}/${r.locale}/${r.slug}`));
}

/** Of the (record, environment, locale) places, those where the tenant's record has a page. */
export async function recordPagesTaken(sql: Sql, tenant: string, places: readonly { recordUuid: string; environment: string; locale: string }[]): Promise<Set<string>> {
  if (places.length === 0) return new Set();
  const rows = await sql.query<{ record_uuid: string; environment: string; locale: string }>(
    `select record_uuid, environment, locale from rm_pages where tenant = $1 and not template
        and (record_uuid::text, environment, locale) in (select * from unnest($2::text[], $3::text[], $4::text[]))`,
    [tenant, places.map((p) => p.recordUuid), places.map((p) => p.environment), places.map((p) => p.locale)],
  );
  return new Set(rows.map((r) => `${r.record_uuid}/${r.environment}/${r.locale}`));
}

/** Of the record uuids, the live records of the tenant whose primary object has the Page trait, with that object. */
export async function pageRecords(sql: Sql, tenant: string, recordUuids: readonly string[]): Promise<Map<string, { objectUuid: string; objectName: string }>> {
  if (recordUuids.length === 0) return new Map();
  const rows = await sql.query<{ uuid: string; object_name: string; object_uuid: string }>(
    `select r.uuid, r.object_name, r.primary_object_uuid as object_uuid from records r
       join rm_traits t on t.tenant = r.tenant and t.object_uuid = r.primary_object_uuid and t.trait = 'Page' and t.removed_at is null
      where r.tenant = $1 and r.uuid = any($2::uuid[]) and r.is_primary and r.deleted_at is null`,
    [tenant, recordUuids],
  );
  return new Map(rows.map((r) => [r.uuid, { objectUuid: r.object_uuid, objectName: r.object_name }]));
}
