import { shortLived } from '../cache/short-lived.js';
import { broadcastStale } from '../cache/cache-bus.js';
import { loadRecordObject, type RecordObject } from '../../read-models/records.queries.js';
import type { Sql } from '../../ports/sql.js';

/**
 * The tenant's objects by name with their properties, as record writes and index requests read
 * them, for at most SCHEMA_CACHE_MS (default 1 s; 0 turns the cache off). An append to one of the
 * tenant's object, property, relation or trait streams in this process forgets the tenant's
 * entries at once and tells the other processes (src/cache/cache-bus.ts), which forget them when
 * the notification arrives; SCHEMA_CACHE_MS bounds a missed notification. A schema read
 * is never locked against the write that follows it, so the cache widens that window, it does
 * not open it (docs/records.md).
 */
const objects = shortLived<RecordObject>({ ttlMs: 1000 });

export const configureObjectCache = (ms: number) => objects.configure(ms);
export const cachedObject = (tenant: string, name: string, now: number) => objects.get(tenant, name, now);
export const rememberObject = (tenant: string, object: RecordObject, now: number) => objects.set(tenant, object.name, object, now);
/** Forgets the tenant's objects here and tells the other processes to (resolves once they are told). */
export function forgetObjects(tenant: string): Promise<void> {
  objects.forget(tenant);
  return broadcastStale(`${STALE_SCHEMA}${tenant}`);
}

/** What another process's forgetObjects sends: the prefix, then the tenant. */
export const STALE_SCHEMA = 'schema:';
export const forgetObjectsHere = (tenant: string) => objects.forget(tenant);

/** The tenant's live object `name` with its live properties, from the cache or read (and kept); null when there is none. */
export function objectByName(sql: Sql, tenant: string, name: string): Promise<RecordObject | null> {
  // Requests that miss at once (the entry just expired) share one read.
  return objects.load(tenant, name, Date.now(), () => loadRecordObject(sql, tenant, name), (o): o is RecordObject => o !== null);
}

/**
 * A record's live objects by name (its primary object's name first), from the cache: the primary
 * object first, then the others by uuid, the order whose definitions win a name clash.
 */
export async function recordObjects(sql: Sql, tenant: string, names: readonly string[]): Promise<RecordObject[]> {
  const [primary, ...others] = (await Promise.all(names.map((name) => objectByName(sql, tenant, name)))).filter((o) => o !== null);
  return primary ? [primary, ...others.sort((a, b) => (a.objectUuid < b.objectUuid ? -1 : 1))] : [];
}

const SCHEMA_STREAMS = /^(object|property|relation|trait)-/;

export const affectsSchema = (streamId: string) => SCHEMA_STREAMS.test(streamId);
