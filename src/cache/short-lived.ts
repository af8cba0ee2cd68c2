import { detached } from '../db/query-signal.js';

/**
 * A per-process cache of read-model answers that may be at most `ttlMs` old, grouped by scope (a
 * tenant, or one group for all) so that a change forgets exactly the answers it can affect.
 * Entries past `maxEntries` clear the cache rather than keep an order of use.
 */
export function shortLived<V>(options: { ttlMs: number; maxEntries?: number }) {
  const maxEntries = options.maxEntries ?? 10_000;
  let ttlMs = options.ttlMs;
  let size = 0;
  const scopes = new Map<string, Map<string, { value: V; until: number }>>();
  // Reads under way, so that the callers that miss at once share one; and a count of each scope's
  // forgets, so that a read that started before a forget is answered but not kept.
  const loading = new Map<string, Promise<unknown>>();
  const forgets = new Map<string, number>();
  let forgetsAll = 0;

  function set(scope: string, key: string, value: V, now: number) {
    if (ttlMs <= 0) return;
    if (size >= maxEntries) {
      scopes.clear();
      size = 0;
    }
    let entries = scopes.get(scope);
    if (!entries) scopes.set(scope, (entries = new Map()));
    if (!entries.has(key)) size++;
    entries.set(key, { value, until: now + ttlMs });
  }

  return {
    /** A new lifetime (0 turns the cache off); forgets everything. */
    configure(ms: number) {
      ttlMs = ms;
      scopes.clear();
      size = 0;
      loading.clear();
      forgetsAll++;
    },
    get(scope: string, key: string, now: number): V | undefined {
      const entries = scopes.get(scope);
      const hit = entries?.get(key);
      if (!hit) return undefined;
      if (now < hit.until) return hit.value;
      entries!.delete(key);
      size--;
      return undefined;
    },
    set,
    /**
     * The answer from the cache, or from `read` (kept when `keep` takes it and no forget of its
     * scope came meanwhile); callers that miss the same key while a read is under way share it.
     */
    load<R extends V | null>(scope: string, key: string, now: number, read: () => Promise<R>, keep: (value: R) => value is R & V = (v): v is R & V => true): Promise<R> {
      const entries = scopes.get(scope);
      const hit = entries?.get(key);
      if (hit && now < hit.until) return Promise.resolve(hit.value as R);
      const id = `${scope}\u0000${key}`;
      const under = loading.get(id) as Promise<R> | undefined;
      if (under) return under;
      const generation = `${forgetsAll}:${forgets.get(scope) ?? 0}`;
      // Shared: for no one request, so that one client leaving does not fail the others' read.
      const p = detached(read).then(
        (value) => {
          if (loading.get(id) === p) loading.delete(id);
          if (keep(value) && generation === `${forgetsAll}:${forgets.get(scope) ?? 0}`) set(scope, key, value, now);
          return value;
        },
        (err: unknown) => {
          if (loading.get(id) === p) loading.delete(id);
          throw err;
        },
      );
      loading.set(id, p);
      return p;
    },
    /** Forgets one scope's answers, or every answer (and reads under way are not kept). */
    forget(scope?: string) {
      if (scope === undefined) {
        scopes.clear();
        size = 0;
        loading.clear();
        forgetsAll++;
        return;
      }
      size -= scopes.get(scope)?.size ?? 0;
      scopes.delete(scope);
      for (const id of loading.keys()) if (id.startsWith(`${scope}\u0000`)) loading.delete(id);
      forgets.set(scope, (forgets.get(scope) ?? 0) + 1);
    },
  };
}
