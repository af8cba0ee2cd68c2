import type { AppBar, AppProfile, OAuthProvider } from '../aggregates/app/app.events.js';
import type { SettingsSchema, SettingValues } from '../aggregates/app/app.settings-schema.js';
import type { InstallationCredentials } from '../aggregates/app/installation.events.js';
import type { Sql } from '../ports/sql.js';
import { likeContains } from './list-spec.js';

export interface AppRow {
  tenant: string;
  app_uuid: string;
  visibility: 'PUBLIC' | 'PRIVATE';
  label: string;
  description: string;
  details: string;
  category: string;
  pricing: AppProfile['pricing'];
  settings_schema: SettingsSchema;
  app_bars: AppBar[];
  webhook_url: string | null;
  oauth_providers: OAuthProvider[];
  scopes: string[];
  platform_version: number;
  runtime_status: string;
  runtime_error: string | null;
  cms_package: { key: string; sha256: string; size: number; files: number; gzipped: boolean; uploadedAt: number } | null;
  review_state: string;
  feedback: string;
  reviewer_notes: string;
  created_at: number;
  updated_at: number;
  created_by: string | null;
  updated_by: string | null;
  revision: number;
}

export interface InstallationRow {
  tenant: string;
  app_uuid: string;
  app_tenant: string;
  installed: boolean;
  settings: SettingValues;
  state: Record<string, unknown>;
  credentials: InstallationCredentials;
  previous_credentials: InstallationCredentials | null;
  previous_valid_until: number | null;
  granted_scopes: string[];
  installed_at: number;
  updated_at: number;
  revision: number;
}

export interface ConnectionRow {
  connection_id: string;
  provider: string;
  scope: string;
  expires_at: number | null;
  tokens: string;
  connected_at: number;
}

/** An app by uuid, whoever created it (the caller decides who may see it). */
export async function appByUuid(sql: Sql, appUuid: string): Promise<AppRow | null> {
  const [row] = await sql.query<AppRow>('select * from rm_apps where app_uuid = $1', [appUuid]);
  return row ?? null;
}

/**
 * The apps `tenant` may see: approved public apps, and its own private apps (and, with `own`, only
 * the apps it created, in any state), sorted by category then label.
 */
export async function listApps(sql: Sql, tenant: string, o: { own: boolean; query?: string; limit: number; offset: number }): Promise<{ rows: AppRow[]; total: number }> {
  const visible = o.own ? 'tenant = $1' : `((visibility = 'PUBLIC' and review_state = 'APPROVED') or (visibility = 'PRIVATE' and tenant = $1))`;
  const where = `${visible} and ($2::text is null or label ilike $2 or description ilike $2 or category ilike $2)`;
  const params = [tenant, o.query ? likeContains(o.query) : null];
  const rows = await sql.query<AppRow>(`select * from rm_apps where ${where} order by category, lower(label), app_uuid limit $3 offset $4`, [...params, o.limit, o.offset]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from rm_apps where ${where}`, params);
  return { rows, total: Number(count?.n ?? 0) };
}

/** The installation of an app in the tenant (installed or not: null when there never was one). */
export async function installationOf(sql: Sql, tenant: string, appUuid: string): Promise<InstallationRow | null> {
  const [row] = await sql.query<InstallationRow>('select * from rm_app_installations where tenant = $1 and app_uuid = $2', [tenant, appUuid]);
  return row ?? null;
}

/** The app uuids installed in the tenant. */
export async function installedApps(sql: Sql, tenant: string): Promise<string[]> {
  const rows = await sql.query<{ app_uuid: string }>('select app_uuid from rm_app_installations where tenant = $1 and installed order by installed_at, app_uuid', [tenant]);
  return rows.map((r) => r.app_uuid);
}

export async function userSettingsOf(sql: Sql, tenant: string, appUuid: string, userUuid: string): Promise<SettingValues> {
  const [row] = await sql.query<{ settings: SettingValues }>('select settings from rm_app_user_settings where tenant = $1 and app_uuid = $2 and user_uuid = $3', [tenant, appUuid, userUuid]);
  return row?.settings ?? {};
}

/** Secret names and their ciphertext (never decrypted here). */
export async function secretsOf(sql: Sql, tenant: string, appUuid: string): Promise<{ name: string; ciphertext: string; updated_at: number }[]> {
  return sql.query('select name, ciphertext, updated_at from rm_app_secrets where tenant = $1 and app_uuid = $2 order by name', [tenant, appUuid]);
}

export async function connectionsOf(sql: Sql, tenant: string, appUuid: string): Promise<ConnectionRow[]> {
  return sql.query<ConnectionRow>('select connection_id, provider, scope, expires_at, tokens, connected_at from rm_app_connections where tenant = $1 and app_uuid = $2 order by connected_at, connection_id', [tenant, appUuid]);
}

/** The installed apps of the tenant with an app bar at `location`. */
export async function appBarsAt(sql: Sql, tenant: string, location: string | null): Promise<{ app: AppRow; bar: AppBar }[]> {
  const rows = await sql.query<AppRow>(
    `select a.* from rm_apps a join rm_app_installations i on i.app_uuid = a.app_uuid and i.tenant = $1 and i.installed order by a.label, a.app_uuid`,
    [tenant],
  );
  return rows.flatMap((app) => app.app_bars.filter((b) => location === null || b.location === location).map((bar) => ({ app, bar })));
}

/** The installed app holding app bar `appBarUuid` in the tenant. */
export async function appBarOf(sql: Sql, tenant: string, appBarUuid: string): Promise<{ app: AppRow; bar: AppBar } | null> {
  const [app] = await sql.query<AppRow>(
    `select a.* from rm_apps a join rm_app_installations i on i.app_uuid = a.app_uuid and i.tenant = $1 and i.installed
      where a.app_bars @> $2::jsonb`,
    [tenant, JSON.stringify([{ uuid: appBarUuid }])],
  );
  const bar = app?.app_bars.find((b) => b.uuid === appBarUuid);
  return app && bar ? { app, bar } : null;
}

/** An app's CMS module catalog, retired modules included (spec 4.12), by name. */
export async function cmsModulesOf(sql: Sql, appUuid: string): Promise<{ name: string; definition: unknown; retired: boolean; updated_at: number }[]> {
  return sql.query('select name, definition, retired, updated_at from rm_app_cms_modules where app_uuid = $1 order by retired, name', [appUuid]);
}

/** The CMS modules of the apps installed in the tenant, retired ones included, as `<appUuid>/<name>`. */
export async function installedCmsModules(sql: Sql, tenant: string): Promise<{ name: string; definition: unknown; retired: boolean }[]> {
  return sql.query(
    `select m.app_uuid || '/' || m.name as name, m.definition, m.retired from rm_app_installations i join rm_app_cms_modules m on m.app_uuid = i.app_uuid
      where i.tenant = $1 and i.installed order by name`,
    [tenant],
    'app_installed_cms_modules',
  );
}

/** The labels of the apps named (the actors of writes made by their functions), by uuid. */
export async function appLabels(sql: Sql, uuids: Iterable<string | undefined>): Promise<Map<string, string>> {
  const wanted = [...new Set([...uuids].filter((u): u is string => !!u))];
  if (wanted.length === 0) return new Map();
  const rows = await sql.query<{ app_uuid: string; label: string }>('select app_uuid, label from rm_apps where app_uuid = any($1::uuid[])', [wanted]);
  return new Map(rows.map((r) => [r.app_uuid, r.label]));
}
