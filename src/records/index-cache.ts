import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import type { IndexResult, IndexTarget } from '../../read-models/record-index/record-index.queries.js';

/**
 * Filtered and free-text index results, kept per process and keyed by the object's change count
 * (migration 0008), so a kept result is exact, never stale: a request whose object has seen no
 * record change since the result was read gets it for the price of reading the count (in the
 * statement that reads the page's records) instead of reading every match again. Paging through
 * a list, a dashboard asking again, many users on one list view: each is one full read per
 * change of the object.
 *
 * Not kept: unfiltered requests (already a page of an index), and requests through a relation
 * (they depend on other objects' records). At most INDEX_CACHE_ENTRIES results (least recently
 * used first out; 0 turns the cache off).
 */
let maxEntries = 2000;
const entries = new Map<string, IndexResult & { version: string }>();

export function configureIndexCache(max: number) {
  maxEntries = max;
  entries.clear();
}

const filtered = (req: CompiledIndexRequest) => req.filter.all.length > 0 || req.filter.anyOf.length > 0 || Boolean(req.query);

/** Where a request's result is kept (null: such results are not kept), and what is kept there. */
export function keptIndex(target: IndexTarget, req: CompiledIndexRequest): { key: string; kept?: IndexResult & { version: string } } | null {
  if (maxEntries === 0 || !filtered(req) || Object.keys(target.relations ?? {}).length > 0) return null;
  const key = `${target.tenant}\u0000${target.objectUuid}\u0000${JSON.stringify(req)}`;
  const kept = entries.get(key);
  if (kept) {
    entries.delete(key);
    entries.set(key, kept);
  }
  return { key, kept };
}

/** Keeps a result read with its object's change count. */
export function keepIndex(key: string, result: IndexResult) {
  if (maxEntries === 0 || result.version === undefined) return;
  entries.delete(key);
  entries.set(key, { ...result, version: result.version });
  if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
}
