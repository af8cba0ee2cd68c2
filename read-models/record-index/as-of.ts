import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { compareSortKeys, evaluateFilter, inArchiveScope, sortKeys, type SortKeys } from '../../aggregates/record-filter/filter.evaluate.js';
import { pageOffset } from '../../aggregates/kernel/paging.js';
import type { Sql } from '../../ports/sql.js';
import { buildTimeline, catchUp, recordsAt, type ObjectTimeline, type RecordThen } from './as-of-timeline.js';

/**
 * A list as of a log position (issue 38, ADR 0020): the object's records as they were at the
 * position, from its timeline (as-of-timeline.ts), through the filter language's own evaluator
 * (aggregates/record-filter/filter.evaluate.ts): the same scope, filter, sort and page as
 * `evaluateIndex`, with the sort keys computed once per match and only the records up to the
 * page's end kept in order.
 */

interface Held {
  timeline: Promise<ObjectTimeline>;
  /** The catch-ups of a timeline run one at a time. */
  queue: Promise<unknown>;
}

const held = new Map<string, Held>();
let maxObjects = 8;

/** How many objects' timelines are held (least recently used dropped first); 0 holds none. */
export function configureAsOf(opts: { maxObjects: number }): void {
  maxObjects = opts.maxObjects;
  while (held.size > Math.max(0, maxObjects)) held.delete(held.keys().next().value!);
}

/** Figures for the bench and the metrics: timelines held, events in them. */
export async function asOfStats(): Promise<{ objects: number; events: number }> {
  let events = 0;
  for (const h of held.values()) events += (await h.timeline.catch(() => null))?.events ?? 0;
  return { objects: held.size, events };
}

/** The object's timeline, brought up to date with the log. */
async function timelineOf(sql: Sql, tenant: string, objectUuid: string): Promise<ObjectTimeline> {
  const key = `${tenant}/${objectUuid}`;
  let h = held.get(key);
  if (h) held.delete(key);
  else {
    const timeline = buildTimeline(sql, tenant, objectUuid);
    h = { timeline, queue: timeline };
  }
  if (maxObjects > 0) {
    held.set(key, h);
    while (held.size > maxObjects) held.delete(held.keys().next().value!);
  }
  const entry = h;
  const run = entry.queue.catch(() => undefined).then(async () => {
    const t = await entry.timeline;
    await catchUp(sql, tenant, t);
    return t;
  });
  entry.queue = run;
  try {
    return await run;
  } catch (err) {
    held.delete(key);
    throw err;
  }
}

/** The first `k` of `items` in the order of `cmp` (all of them sorted when k is not small). */
function firstInOrder<T>(items: T[], k: number, cmp: (a: T, b: T) => number): T[] {
  if (k * 4 >= items.length) return items.sort(cmp).slice(0, k);
  const top: T[] = [];
  for (const item of items) {
    if (top.length === k && cmp(item, top[k - 1]!) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(top[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, item);
    if (top.length > k) top.pop();
  }
  return top;
}

/**
 * The page of the object's records matching `request` as they were at log position `position`,
 * and how many matched then. The request's free-text `query` and relation conditions are not
 * evaluated here (the caller refuses them).
 */
export async function listAsOf(sql: Sql, tenant: string, objectUuid: string, request: CompiledIndexRequest, position: number): Promise<{ total: number; rows: RecordThen[] }> {
  const timeline = await timelineOf(sql, tenant, objectUuid);
  const matching: { r: RecordThen; keys: SortKeys }[] = [];
  for (const r of recordsAt(timeline, position)) {
    if (inArchiveScope(request.archived, r) && evaluateFilter(request.filter, r)) matching.push({ r, keys: sortKeys(request.sort, r) });
  }
  const start = pageOffset(request.page, request.limit);
  const first = firstInOrder(matching, start + request.limit, (a, b) => compareSortKeys(request.sort, a.keys, b.keys));
  return { total: matching.length, rows: first.slice(start).map((m) => m.r) };
}

export type { RecordThen } from './as-of-timeline.js';
export { logPositions, propertiesAt } from './as-of.queries.js';
