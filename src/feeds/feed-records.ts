import { compileIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { normaliseOperator, type FilterOperator, type RecordIndexRequest } from '../../aggregates/record-filter/filter.schema.js';
import type { FeedSettings } from '../../aggregates/feed/feed.events.js';
import { indexRecords, objectChanges } from '../../read-models/record-index/index.js';
import { feedRecords, type FeedRecord, type FeedRow } from '../../read-models/feeds.queries.js';
import { loadRecordObjects } from '../../read-models/records.queries.js';
import type { Db } from '../db/db.js';
import { catalogOf } from '../records/records.reads.js';

/** Records per page the engine is asked for: what a feed holds in memory at once. */
export const FEED_PAGE = 2000;

/** A feed's filters and sort as an index request of the records filter language, page `page` of `limit`. */
export function feedRequest(filters: FeedSettings['filters'], sort: FeedSettings['sort'], page: number, limit: number): RecordIndexRequest {
  return {
    filters: filters.map((f) => ({ key: f.key, operator: (normaliseOperator(f.operator) ?? f.operator) as FilterOperator, ...(f.value !== undefined ? { value: f.value } : {}) })),
    sort: sort.map((s) => ({ key: s.key, direction: s.direction })),
    limit,
    page,
    archived: 'exclude',
  };
}

/** The object's change count: what a feed's ETag and Last-Modified are made from. */
export const feedVersion = (db: Db, feed: FeedRow) => objectChanges(db, feed.tenant, feed.object_uuid).then((c) => c.version);

/**
 * The feed's records, page by page through the record engine (read-models/record-index/index.ts,
 * rule 11): the engine finds each page's uuids in the feed's filter and order, then their values
 * are read. At most one page is held at a time, so a feed of any size is written in flat memory.
 * Stops when a page comes back short, or when `aborted()` says the client went away.
 */
export async function* feedPages(db: Db, feed: FeedRow, aborted: () => boolean = () => false, pageSize = FEED_PAGE): AsyncGenerator<FeedRecord[]> {
  const [object] = await loadRecordObjects(db, feed.tenant, [feed.object_uuid]);
  if (!object) return;
  const catalog = { properties: catalogOf([object]) };
  for (let page = 0; !aborted(); page++) {
    const compiled = compileIndexRequest(catalog, feedRequest(feed.filters, feed.sort, page, pageSize));
    const { uuids } = await indexRecords(db, { tenant: feed.tenant, objectUuid: feed.object_uuid }, compiled);
    if (uuids.length === 0) return;
    yield await feedRecords(db, feed.tenant, feed.object_uuid, uuids);
    if (uuids.length < pageSize) return;
  }
}
