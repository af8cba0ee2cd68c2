import { APP_STREAM_PREFIX } from '../../aggregates/app/app.events.js';
import { INSTALLATION_STREAM_PREFIX } from '../../aggregates/app/installation.events.js';
import { ENVIRONMENTS_STREAM_PREFIX } from '../../aggregates/environment/environment.events.js';
import { MODULE_STREAM_PREFIX } from '../../aggregates/module/module.events.js';
import type { ModuleCatalogue } from '../../aggregates/page/page.modules.js';
import { broadcastStale } from '../cache/cache-bus.js';
import { shortLived } from '../cache/short-lived.js';

/**
 * What every page patch would otherwise read again: the module catalogue an editor's edits are
 * checked against (per tenant and editor) and the key of the tenant's default environment. Kept
 * for at most SCHEMA_CACHE_MS (default 1 s; 0 turns it off), like the object cache
 * (src/records/object-cache.ts):
 * - an append in this process to a stream they are made of (module definitions, the
 *   environments, an app or its installation) forgets them at once, before its client hears;
 * - the other processes on the same PostgreSQL are told (src/cache/cache-bus.ts) and forget them
 *   as soon as the notification arrives; SCHEMA_CACHE_MS bounds a missed notification.
 * A read that began before a forget is not kept (its answer may predate the change).
 */
const catalogues = shortLived<ModuleCatalogue>({ ttlMs: 1000 });
const defaults = shortLived<string>({ ttlMs: 1000 });
/** Forgets so far, per tenant and in all: a read kept only if none happened while it ran. */
let forgotten = 0;
const forgottenIn = new Map<string, number>();
const generation = (tenant: string) => forgotten + (forgottenIn.get(tenant) ?? 0);

export function configureCmsCache(ms: number) {
  catalogues.configure(ms);
  defaults.configure(ms);
}

/** The value of `key` in the tenant's scope of `cache`, read by `load` (and kept) when absent. */
async function cached<V>(cache: ReturnType<typeof shortLived<V>>, tenant: string, key: string, load: () => Promise<V>): Promise<V> {
  const hit = cache.get(tenant, key, Date.now());
  if (hit !== undefined) return hit;
  const before = generation(tenant);
  const value = await load();
  if (generation(tenant) === before) cache.set(tenant, key, value, Date.now());
  return value;
}

/** The module catalogue of an editor (`userUuid`) in the tenant, from the cache or `load`. */
export const cachedCatalogue = (tenant: string, userUuid: string | null, load: () => Promise<ModuleCatalogue>) => cached(catalogues, tenant, userUuid ?? '', load);

/** The key of the tenant's default environment (null: it has none, not kept), from the cache or `load`. */
export async function cachedDefaultEnvironment(tenant: string, load: () => Promise<string | null>): Promise<string | null> {
  const hit = defaults.get(tenant, '', Date.now());
  if (hit !== undefined) return hit;
  const before = generation(tenant);
  const key = await load();
  if (key !== null && generation(tenant) === before) defaults.set(tenant, '', key, Date.now());
  return key;
}

/** Forgets here what a change of the tenant's CMS definitions may have changed (every tenant's: `null`). */
export function forgetCmsHere(tenant: string | null) {
  if (tenant === null) {
    forgotten++;
    catalogues.forget();
    defaults.forget();
    return;
  }
  forgottenIn.set(tenant, (forgottenIn.get(tenant) ?? 0) + 1);
  catalogues.forget(tenant);
  defaults.forget(tenant);
}

/** What another process's forgetCms sends: the prefix, then the tenant (`*`: every tenant). */
export const STALE_CMS = 'cms:';

/**
 * The tenants whose CMS definitions an append to `streamId` may change: its own (module
 * definitions, environments, an installation), every tenant (an app: a new version retires or
 * adds modules wherever it is installed), or none (null).
 */
export function cmsScopeOf(streamId: string, tenant: string): string | null | undefined {
  if (streamId.startsWith(MODULE_STREAM_PREFIX) || streamId === ENVIRONMENTS_STREAM_PREFIX || streamId.startsWith(INSTALLATION_STREAM_PREFIX)) return tenant;
  if (streamId.startsWith(APP_STREAM_PREFIX)) return null;
  return undefined;
}

/** After an append to `streamId`: forgets here and tells the other processes (resolves once they are told). */
export async function forgetCmsAfter(streamId: string, tenant: string): Promise<void> {
  const scope = cmsScopeOf(streamId, tenant);
  if (scope === undefined) return;
  forgetCmsHere(scope);
  await broadcastStale(`${STALE_CMS}${scope ?? '*'}`);
}

/** Another process's forget: the part of its message after STALE_CMS. */
export const forgetCmsFrom = (scope: string) => forgetCmsHere(scope === '*' ? null : scope);
