import { applyBatch, type PageDocument, type ResolvedOp } from '../aggregates/page/page.document.js';
import type { PublicationEvent, StoredProtection } from '../aggregates/page/page.events.js';
import { evolvePublication, unpublished, type Publication } from '../aggregates/page/page.publication.js';
import type { Sql } from '../ports/sql.js';
import { ROOT_SLUG_SQL } from './cms-environments.queries.js';

export interface PageRow {
  tenant: string;
  page_uuid: string;
  record_uuid: string;
  object_uuid: string;
  object_name: string;
  environment: string;
  locale: string;
  template: boolean;
  slug: string;
  title: string;
  document: PageDocument;
  doc_revision: number;
  protection: StoredProtection;
  published: boolean;
  ever_published: boolean;
  publish_at: number | null;
  unpublish_at: number | null;
  schedule_request: string | null;
  idx: number;
  created_at: number;
  updated_at: number;
  created_by: string | null;
  updated_by: string | null;
  revision: number;
}

const columnsOf = (p: string) => `${p}tenant, ${p}page_uuid, ${p}record_uuid, ${p}object_uuid, ${p}object_name, ${p}environment, ${p}locale, ${p}template, ${p}slug,
  ${p}title, ${p}document, ${p}doc_revision, ${p}protection, ${p}published, ${p}ever_published, ${p}publish_at::float8 as publish_at,
  ${p}unpublish_at::float8 as unpublish_at, ${p}schedule_request, ${p}idx, ${p}created_at::float8 as created_at, ${p}updated_at::float8 as updated_at,
  ${p}created_by, ${p}updated_by, ${p}revision`;
const columns = columnsOf('');

export const publicationOf = (row: Pick<PageRow, 'published' | 'ever_published' | 'publish_at' | 'unpublish_at'>): Publication => ({
  published: row.published,
  everPublished: row.ever_published,
  publishAt: row.publish_at,
  unpublishAt: row.unpublish_at,
});

/** A page (or template) of the tenant; null when it has none with this uuid. */
export async function pageByUuid(sql: Sql, tenant: string, pageUuid: string): Promise<PageRow | null> {
  const [row] = await sql.query<PageRow>(`select ${columns} from rm_pages where tenant = $1 and page_uuid = $2`, [tenant, pageUuid], 'pages_by_uuid');
  return row ?? null;
}

/** The page of a record in an environment and locale (templates excluded). */
export async function pageOfRecord(sql: Sql, tenant: string, recordUuid: string, environment: string, locale: string): Promise<PageRow | null> {
  const [row] = await sql.query<PageRow>(`select ${columns} from rm_pages where tenant = $1 and record_uuid = $2 and environment = $3 and locale = $4 and not template`, [tenant, recordUuid, environment, locale], 'pages_of_record');
  return row ?? null;
}

/** The page of a record in an environment (null: the default one) and locale, in one statement. */
export async function pageOfRecordIn(sql: Sql, tenant: string, recordUuid: string, environment: string | null, locale: string): Promise<PageRow | null> {
  const [row] = await sql.query<PageRow>(
    `select ${columns} from rm_pages where tenant = $1 and record_uuid = $2 and locale = $4 and not template
        and environment = coalesce($3::text, (select key from rm_cms_environments where tenant = $1 and is_default))`,
    [tenant, recordUuid, environment, locale],
    'pages_of_record_in',
  );
  return row ?? null;
}

/** `pageOfRecordIn` with what the page's DTO adds (`pageExtras`), in one statement: the module editor's read. */
export async function pageOfRecordWithExtras(sql: Sql, tenant: string, recordUuid: string, environment: string | null, locale: string): Promise<(PageRow & { vals: Record<string, unknown> | null; locales: string[] | null }) | null> {
  const [row] = await sql.query<PageRow & { vals: Record<string, unknown> | null; locales: string[] | null }>(
    `select ${columnsOf('p.')},
            (select r.vals from records r where r.tenant = p.tenant and r.uuid = p.record_uuid and r.is_primary) as vals,
            (select array_agg(o.locale order by o.locale) from rm_pages o where o.tenant = p.tenant and o.record_uuid = p.record_uuid and o.environment = p.environment and not o.template) as locales
       from rm_pages p where p.tenant = $1 and p.record_uuid = $2 and p.locale = $4 and not p.template
        and p.environment = coalesce($3::text, (select key from rm_cms_environments where tenant = $1 and is_default))`,
    [tenant, recordUuid, environment, locale],
    'pages_of_record_with_extras',
  );
  return row ?? null;
}

/** What a page DTO adds to the page: the record's values (null: no record) and the locales of its pages in the environment. */
export interface PageExtras {
  vals: Record<string, unknown> | null;
  locales: string[] | null;
}

/** What a page DTO adds to the page: the record's values and the locales of its pages in the environment. */
export async function pageExtras(sql: Sql, tenant: string, recordUuid: string, environment: string): Promise<{ vals: Record<string, unknown> | null; locales: string[] }> {
  const [row] = await sql.query<{ vals: Record<string, unknown> | null; locales: string[] | null }>(
    `select (select r.vals from records r where r.tenant = $1 and r.uuid = $2 and r.is_primary) as vals,
            (select array_agg(p.locale order by p.locale) from rm_pages p where p.tenant = $1 and p.record_uuid = $2 and p.environment = $3 and not p.template) as locales`,
    [tenant, recordUuid, environment],
    'pages_extras',
  );
  return { vals: row?.vals ?? null, locales: row?.locales ?? [] };
}

/** The template page of an object in an environment and locale. */
export async function templateOf(sql: Sql, tenant: string, objectUuid: string, environment: string, locale: string): Promise<PageRow | null> {
  const [row] = await sql.query<PageRow>(`select ${columns} from rm_pages where tenant = $1 and object_uuid = $2 and environment = $3 and locale = $4 and template`, [tenant, objectUuid, environment, locale]);
  return row ?? null;
}

/** The pages of a record (templates excluded), in every environment and locale. */
export async function pagesOfRecord(sql: Sql, tenant: string, recordUuid: string): Promise<PageRow[]> {
  return sql.query<PageRow>(`select ${columns} from rm_pages where tenant = $1 and record_uuid = $2 and not template order by environment, locale`, [tenant, recordUuid]);
}

/** The pages linked as translations to any of `pageUuids`. */
export async function pagesLinkedTo(sql: Sql, tenant: string, pageUuids: readonly string[]): Promise<PageRow[]> {
  return sql.query<PageRow>(
    `select ${columnsOf('p.')} from rm_page_translations t join rm_pages p on p.tenant = t.tenant and p.page_uuid = t.other_uuid
      where t.tenant = $1 and t.page_uuid = any($2::uuid[]) order by p.environment, p.locale`,
    [tenant, pageUuids],
  );
}

/** Whether a page (not a template) of the environment and locale has the slug. */
export async function slugInUse(sql: Sql, tenant: string, environment: string, locale: string, slug: string): Promise<boolean> {
  const rows = await sql.query('select 1 from rm_pages where tenant = $1 and environment = $2 and locale = $3 and slug = $4 and not template', [tenant, environment, locale, slug]);
  return rows.length > 0;
}

/** The locales a record has pages in, in one environment. */
export async function localesOf(sql: Sql, tenant: string, recordUuid: string, environment: string): Promise<string[]> {
  const rows = await sql.query<{ locale: string }>(`select locale from rm_pages where tenant = $1 and record_uuid = $2 and environment = $3 and not template order by locale`, [tenant, recordUuid, environment], 'pages_locales');
  return rows.map((r) => r.locale);
}

export async function pageCountIn(sql: Sql, tenant: string, environment: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>('select count(*)::int as n from rm_pages where tenant = $1 and environment = $2', [tenant, environment]);
  return row?.n ?? 0;
}

export interface RevisionRow {
  revision: number;
  kind: 'created' | 'patched' | 'restored';
  ops: ResolvedOp[];
  restored_from: number | null;
  at: number;
  user_uuid: string | null;
  request_id: string;
}

/** A page's history, newest first. */
export async function revisionsOf(sql: Sql, tenant: string, pageUuid: string, limit: number, offset: number): Promise<{ rows: RevisionRow[]; total: number }> {
  const rows = await sql.query<RevisionRow>(
    `select revision, kind, ops, restored_from, at::float8 as at, user_uuid, request_id from rm_page_revisions where tenant = $1 and page_uuid = $2 order by revision desc limit $3 offset $4`,
    [tenant, pageUuid, limit, offset],
  );
  const [count] = await sql.query<{ n: number }>('select count(*)::int as n from rm_page_revisions where tenant = $1 and page_uuid = $2', [tenant, pageUuid]);
  return { rows, total: count?.n ?? 0 };
}

/**
 * The document as it was at `revision`: the nearest snapshot at or before it, then the ops of
 * the batches after it (fewer than SNAPSHOT_EVERY). Null when the page has no such revision.
 */
export async function documentAt(sql: Sql, tenant: string, pageUuid: string, revision: number): Promise<PageDocument | null> {
  const [snap] = await sql.query<{ revision: number; document: PageDocument }>(
    'select revision, document from rm_page_snapshots where tenant = $1 and page_uuid = $2 and revision <= $3 order by revision desc limit 1',
    [tenant, pageUuid, revision],
    'pages_snapshot_at',
  );
  if (!snap) return null;
  if (snap.revision === revision) return snap.document;
  const batches = await sql.query<{ revision: number; ops: ResolvedOp[] }>(
    'select revision, ops from rm_page_revisions where tenant = $1 and page_uuid = $2 and revision > $3 and revision <= $4 order by revision',
    [tenant, pageUuid, snap.revision, revision],
    'pages_ops_between',
  );
  if (batches.length === 0 || batches[batches.length - 1]!.revision !== revision) return null;
  return batches.reduce((doc, b) => applyBatch(doc, b.ops, b.revision), snap.document);
}

/** The document revision current at `atMs` (epoch ms); null when the page did not exist yet. */
export async function revisionAtTime(sql: Sql, tenant: string, pageUuid: string, atMs: number): Promise<number | null> {
  const [row] = await sql.query<{ revision: number }>('select revision from rm_page_revisions where tenant = $1 and page_uuid = $2 and at <= $3 order by at desc, revision desc limit 1', [tenant, pageUuid, atMs]);
  return row?.revision ?? null;
}

/** The page's publication as it stood at `atMs`: its publication events up to then, folded. */
export async function publicationAtTime(sql: Sql, tenant: string, pageUuid: string, atMs: number): Promise<Publication> {
  const rows = await sql.query<{ event: PublicationEvent }>('select event from rm_page_publications where tenant = $1 and page_uuid = $2 and at <= $3 order by stream_revision', [tenant, pageUuid, atMs]);
  return rows.reduce((p, r) => evolvePublication(p, r.event), unpublished());
}

/**
 * The page a public request names: the company by subdomain, the environment by its slug prefix
 * or key (`rootSlug`), then slug and locale. Templates are never public. One statement.
 */
export async function publicPageBySlug(sql: Sql, subdomain: string, rootSlug: string, slug: string, locale: string | null): Promise<PageRow | null> {
  const [row] = await sql.query<PageRow>(
    `select ${columnsOf('p.')} from companies c
       join rm_cms_environments e on e.tenant = c.company_uuid::text and (e.slug_prefix = $2 or (e.slug_prefix = '' and e.key = $2))
       join rm_pages p on p.tenant = e.tenant and p.environment = e.key and p.slug = $3 and not p.template and ($4::text is null or p.locale = $4)
      where c.subdomain = $1
      order by (p.locale = e.html_lang) desc, p.locale limit 1`,
    [subdomain, rootSlug, slug, locale],
    'pages_public_by_slug',
  );
  return row ?? null;
}

/**
 * The slug map of a company (by subdomain): its pages live at `nowSeconds`, by environment, locale
 * and slug. Templates and protected pages' titles are left out (a protected page shows its slug only).
 */
export async function liveSlugs(sql: Sql, subdomain: string, environment: string | null, nowSeconds: number, limit: number, offset: number) {
  const where = `c.subdomain = $1 and ($2::text is null or p.environment = $2) and not p.template
      and (p.published or p.publish_at <= $3) and not coalesce(p.unpublish_at <= $3, false)`;
  const from = `from companies c join rm_pages p on p.tenant = c.company_uuid::text join rm_cms_environments e on e.tenant = p.tenant and e.key = p.environment`;
  const rows = await sql.query<{ environment: string; root_slug: string; locale: string; slug: string; title: string; protected: boolean; uuid: string }>(
    `select p.environment, ${ROOT_SLUG_SQL} as root_slug, p.locale, p.slug, p.title, (p.protection->>'type') <> 'none' as protected, p.page_uuid as uuid
       ${from} where ${where} order by p.environment, p.locale, p.slug limit $4 offset $5`,
    [subdomain, environment, nowSeconds, limit, offset],
  );
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n ${from} where ${where}`, [subdomain, environment, nowSeconds]);
  return { rows, total: count?.n ?? 0 };
}

/** Pages with a transition due at `nowSeconds`, oldest due first. */
export async function duePages(sql: Sql, nowSeconds: number, limit: number): Promise<{ tenant: string; page_uuid: string; schedule_request: string | null }[]> {
  return sql.query(
    `select tenant, page_uuid, schedule_request from (
       select tenant, page_uuid, schedule_request, publish_at as due from rm_pages where publish_at <= $1 and not published
       union all
       select tenant, page_uuid, schedule_request, unpublish_at as due from rm_pages where unpublish_at <= $1 and (published or publish_at is not null)
     ) d order by due limit $2`,
    [nowSeconds, limit],
    'pages_due',
  );
}
