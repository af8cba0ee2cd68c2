import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import type { MatchSet } from './match-set.js';
import type { IndexResult, IndexTarget } from './record-index.queries.js';

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

/**
 * Match sets (PostgreSQL event store): every match of a filtered or free-text request (page,
 * limit and show aside), as sort keys, with the snapshot they were read at and the object's
 * change count then. A later request reads its page with the change count: the same, and the
 * set holds; else it reads the object's record changes since the snapshot from the event log and
 * applies them (match-set.ts) instead of reading every match again:
 * after a write, the price is the changed records, not the matches. A set over MATCH_SET_MAX members is not
 * kept (its request keeps a page above); all sets together hold at most MATCH_SET_BUDGET members.
 */
export const MATCH_SET_MAX = 20_000;
const MATCH_SET_BUDGET = 200_000;
export interface KeptSet {
  set: MatchSet;
  /** The snapshot the set holds at, and the object's change count then. */
  snapshot: string;
  version: string;
}
const sets = new Map<string, KeptSet>();
let members = 0;

export function configureIndexCache(max: number) {
  maxEntries = max;
  entries.clear();
  sets.clear();
  members = 0;
}

/** Where a request's match set is kept (null: not kept: no cache, unfiltered, or through a relation). */
export function keptSet(target: IndexTarget, req: CompiledIndexRequest): { key: string; kept?: KeptSet } | null {
  if (maxEntries === 0 || !filtered(req) || Object.keys(target.relations ?? {}).length > 0) return null;
  const key = `${target.tenant}\u0000${target.objectUuid}\u0000${JSON.stringify({ filter: req.filter, sort: req.sort, archived: req.archived, query: req.query })}`;
  const kept = sets.get(key);
  if (kept) {
    sets.delete(key);
    sets.set(key, kept);
  }
  return { key, kept };
}

/**
 * Match sets being read in full, by key: a request that finds none kept (or one too far behind)
 * waits for the read already under way and then brings its set up to date like a kept one,
 * instead of reading every match too (16 list views opened at once cost one full read).
 */
const reading = new Map<string, Promise<KeptSet | null>>();

export function setBeingRead(key: string): Promise<KeptSet | null> | undefined {
  return reading.get(key);
}

export function readingSet(key: string, read: Promise<KeptSet | null>) {
  const shared = read.catch(() => null);
  reading.set(key, shared);
  void shared.finally(() => {
    if (reading.get(key) === shared) reading.delete(key);
  });
}

/** Keeps a match set (or forgets the key's when it has grown past MATCH_SET_MAX). */
export function keepSet(key: string, kept: KeptSet | null) {
  const old = sets.get(key);
  if (old) {
    members -= old.set.members.length;
    sets.delete(key);
  }
  if (maxEntries === 0 || !kept || kept.set.members.length > MATCH_SET_MAX) return;
  sets.set(key, kept);
  members += kept.set.members.length;
  while (sets.size > maxEntries || members > MATCH_SET_BUDGET) {
    const [first, out] = sets.entries().next().value!;
    sets.delete(first);
    members -= out.set.members.length;
  }
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
