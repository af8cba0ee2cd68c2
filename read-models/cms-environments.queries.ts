import type { Sql } from '../ports/sql.js';

export interface EnvironmentRow {
  tenant: string;
  key: string;
  env_uuid: string;
  label: string;
  routing: string;
  slug_prefix: string;
  host_label: string;
  html_lang: string;
  requires_auth: boolean;
  is_default: boolean;
  idx: number;
  created_at: number;
  updated_at: number;
  revision: number;
}

/**
 * The environment's root slug in effect (spec 2.6 `slugPrefix`): its slug prefix, or its key when
 * the prefix is empty. Public pages, the slug map, menus and previews live under it, and the
 * environment answers it as its `slugPrefix`.
 */
export const rootSlugOf = (row: Pick<EnvironmentRow, 'key' | 'slug_prefix'>) => row.slug_prefix || row.key;

/** `rootSlugOf` in SQL, for an environment row aliased `e`. */
export const ROOT_SLUG_SQL = "case when e.slug_prefix = '' then e.key else e.slug_prefix end";

const columns = 'tenant, key, env_uuid, label, routing, slug_prefix, host_label, html_lang, requires_auth, is_default, idx, created_at::float8 as created_at, updated_at::float8 as updated_at, revision';

export async function environmentsOf(sql: Sql, tenant: string): Promise<EnvironmentRow[]> {
  return sql.query<EnvironmentRow>(`select ${columns} from rm_cms_environments where tenant = $1 order by idx, key`, [tenant]);
}

export async function environmentByKey(sql: Sql, tenant: string, key: string): Promise<EnvironmentRow | null> {
  const [row] = await sql.query<EnvironmentRow>(`select ${columns} from rm_cms_environments where tenant = $1 and key = $2`, [tenant, key], 'cms_env_by_key');
  return row ?? null;
}

export async function defaultEnvironment(sql: Sql, tenant: string): Promise<EnvironmentRow | null> {
  const [row] = await sql.query<EnvironmentRow>(`select ${columns} from rm_cms_environments where tenant = $1 and is_default`, [tenant], 'cms_env_default');
  return row ?? null;
}
