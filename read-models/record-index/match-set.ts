import type { CompiledIndexRequest, CompiledSort } from '../../aggregates/record-filter/filter.compile.js';
import { compareSortKeys, effectiveSort, evaluateFilter, inArchiveScope, sortKeys, sortValueOf, type FilterableRecord, type SortKeys } from '../../aggregates/record-filter/filter.evaluate.js';
import { pageOffset } from '../../aggregates/kernel/paging.js';

/**
 * Every match of an index request (its scope and filter), in its order, as sort keys: what a kept
 * result is refreshed from when records change (index-cache.ts). The last key of each
 * member is its uuid (`effectiveSort` ends on it), so the order is total and a member is found by
 * its uuid. Pure: the changes come from the caller, read from the event log.
 */
export interface MatchSet {
  readonly members: readonly SortKeys[];
}

const uuidOf = (keys: SortKeys) => keys[keys.length - 1] as string;

/** A free-text match's rank (`ts_rank`, read from the database): the first key of a query with no sort keys. */
export const RANK: CompiledSort['field'] = { name: 'rank', type: 'number', system: true };

/**
 * A record as a match set sees it: a free-text request's matches also need whether the database
 * found the text in it (`hit`) and how it ranked it.
 */
export type RankedRecord = FilterableRecord & { hit?: boolean; rank?: number | null };

type SetRequest = Pick<CompiledIndexRequest, 'filter' | 'sort' | 'archived' | 'query'>;

/**
 * The sort a request's matches are in, as keys (`effectiveSort` of it gives every key): with free
 * text and no sort keys, rank first (desc), then the default order, as the index engine orders.
 */
export function setSort(request: Pick<CompiledIndexRequest, 'sort' | 'query'>): CompiledSort[] {
  if (!request.query || request.sort.length > 0) return request.sort;
  return [{ field: RANK, direction: 'desc' }, ...effectiveSort([]).slice(0, -1)];
}

/** A set from members read in order, each as the raw values of `effectiveSort(setSort(request))`'s fields. */
export function matchSetFromRaw(request: Pick<CompiledIndexRequest, 'sort' | 'query'>, rows: readonly (readonly unknown[])[]): MatchSet {
  const fields = effectiveSort(setSort(request)).map((s) => s.field);
  return { members: rows.map((raw) => fields.map((f, i) => sortValueOf(f, raw[i]))) };
}

/**
 * The set after the records `changed` changed: each leaves the set, and comes back (at its new
 * place) when its row now is in the request's scope and matches (and, with free text, the
 * database found the text in it). `rows` are the changed records' rows as they are now in the
 * object (a record no longer in the object has none).
 */
export function applyChanges(request: SetRequest, set: MatchSet, changed: readonly string[], rows: readonly RankedRecord[]): MatchSet {
  if (changed.length === 0) return set;
  const gone = new Set(changed.map((u) => u.toLowerCase()));
  const sort = setSort(request);
  const cmp = (a: SortKeys, b: SortKeys) => compareSortKeys(sort, a, b);
  const entering = rows
    .filter((r) => gone.has(r.uuid.toLowerCase()) && (!request.query || r.hit === true) && inArchiveScope(request.archived, r) && evaluateFilter(request.filter, r))
    .map((r) => sortKeys(sort, r))
    .sort(cmp);
  const staying = set.members.filter((k) => !gone.has(uuidOf(k)));
  // Merge the two ordered runs.
  const members: SortKeys[] = [];
  let i = 0;
  let j = 0;
  while (i < staying.length || j < entering.length) {
    if (j >= entering.length || (i < staying.length && cmp(staying[i]!, entering[j]!) <= 0)) members.push(staying[i++]!);
    else members.push(entering[j++]!);
  }
  return { members };
}

/** The uuids of page `page` (from 0) of `limit` records. */
export function pageOf(set: MatchSet, page: number, limit: number): string[] {
  const start = pageOffset(page, limit);
  return set.members.slice(start, start + limit).map(uuidOf);
}
