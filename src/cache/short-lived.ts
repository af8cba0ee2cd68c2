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

  return {
    /** A new lifetime (0 turns the cache off); forgets everything. */
    configure(ms: number) {
      ttlMs = ms;
      scopes.clear();
      size = 0;
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
    set(scope: string, key: string, value: V, now: number) {
      if (ttlMs <= 0) return;
      if (size >= maxEntries) {
        scopes.clear();
        size = 0;
      }
      let entries = scopes.get(scope);
      if (!entries) scopes.set(scope, (entries = new Map()));
      if (!entries.has(key)) size++;
      entries.set(key, { value, until: now + ttlMs });
    },
    /** Forgets one scope's answers, or every answer. */
    forget(scope?: string) {
      if (scope === undefined) {
        scopes.clear();
        size = 0;
        return;
      }
      size -= scopes.get(scope)?.size ?? 0;
      scopes.delete(scope);
    },
  };
}
