import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db.js';
import { detached } from '../db/query-signal.js';

/**
 * Tells the other server processes on the same PostgreSQL what a change made stale in their
 * caches (the actor cache, the object cache), by NOTIFY on one channel; each process forgets the
 * entries named as soon as the notification arrives (within milliseconds). The caches' own time
 * limits (AUTH_CACHE_MS, SCHEMA_CACHE_MS) stay as the fallback for a notification missed while
 * the listening connection was down. PGlite is one process: nothing to tell.
 *
 * A message is `<sender>|<what>`: a process ignores its own (it forgot already).
 */
const CHANNEL = 'platform_caches';
const sender = randomUUID();
const buses = new Set<Db>();

/**
 * Sends `what` to every other process listening on a database this process has joined; resolves
 * once sent (never rejects: the caches' time limits cover a notification lost). A caller that
 * awaits it before answering knows the other processes are told by the time its client hears.
 */
export async function broadcastStale(what: string): Promise<void> {
  await Promise.all(
    [...buses].map((db) =>
      // After the caller's change, for no one request: a client leaving must not stop it.
      detached(() => db.query('select pg_notify($1, $2)', [CHANNEL, `${sender}|${what}`])).catch(() => {}),
    ),
  );
}

/** Listens on `db` (PostgreSQL only) and calls `onStale` with what another process changed; returns the leave. */
export async function joinCacheBus(db: Db, onStale: (what: string) => void): Promise<() => Promise<void>> {
  if (db.kind !== 'postgres') return async () => {};
  const unlisten = await db.listen(CHANNEL, (payload) => {
    const bar = payload.indexOf('|');
    if (bar < 0 || payload.slice(0, bar) === sender) return;
    onStale(payload.slice(bar + 1));
  });
  buses.add(db);
  return async () => {
    buses.delete(db);
    await unlisten();
  };
}
