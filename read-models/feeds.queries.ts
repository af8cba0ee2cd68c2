import type { FeedField, FeedFormat, FeedSettings } from '../aggregates/feed/feed.events.js';
import type { Sql } from '../ports/sql.js';
import type { AuditRow } from './audit-row.js';
import { likeContains } from './list-spec.js';

export interface FeedRow extends AuditRow {
  tenant: string;
  feed_uuid: string;
  name: string;
  title: string;
  description: string;
  home_url: string | null;
  object_uuid: string;
  object_name: string;
  filters: FeedSettings['filters'];
  sort: FeedSettings['sort'];
  fields: FeedField[];
  format: FeedFormat;
  enabled: boolean;
  token_hash: string;
}

/** A feed of the tenant, deleted or not (null when the tenant has none with this uuid). */
export async function feedByUuid(sql: Sql, tenant: string, feedUuid: string): Promise<FeedRow | null> {
  const [row] = await sql.query<FeedRow>('select * from rm_feeds where tenant = $1 and feed_uuid = $2', [tenant, feedUuid]);
  return row ?? null;
}

/** The live feed whose token hashes to `tokenHash` (the public route: no tenant, the token names it). */
export async function liveFeedByTokenHash(sql: Sql, tokenHash: string): Promise<FeedRow | null> {
  const [row] = await sql.query<FeedRow>('select * from rm_feeds where token_hash = $1 and deleted_at is null', [tokenHash], 'feeds_by_token');
  return row ?? null;
}

/** The tenant's live feeds (or the deleted ones), oldest first. */
export async function listFeeds(sql: Sql, tenant: string, o: { deleted: boolean; query?: string; limit: number; offset: number }): Promise<{ rows: FeedRow[]; total: number }> {
  const where = `tenant = $1 and (deleted_at is not null) = $2 and ($3::text is null or name ilike $3 or title ilike $3 or object_name ilike $3)`;
  const params = [tenant, o.deleted, o.query ? likeContains(o.query) : null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_feeds where ${where}`, params);
  const rows = await sql.query<FeedRow>(`select * from rm_feeds where ${where} order by created_at, feed_uuid limit $4 offset $5`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

/**
 * When the object's change count `version` was first seen by a feed read (ms): the feed's
 * Last-Modified. A new count replaces the mark with `nowMs`; the same count keeps its time.
 */
export async function markObjectVersion(sql: Sql, tenant: string, objectUuid: string, version: string, nowMs: number): Promise<number> {
  const [row] = await sql.query<{ seen_at: string }>(
    `insert into feed_object_marks (tenant, object_uuid, version, seen_at) values ($1, $2, $3, $4)
     on conflict (tenant, object_uuid) do update set version = excluded.version, seen_at = excluded.seen_at where feed_object_marks.version <> excluded.version
     returning seen_at`,
    [tenant, objectUuid, version, nowMs],
  );
  if (row) return Number(row.seen_at);
  const [kept] = await sql.query<{ seen_at: string }>('select seen_at from feed_object_marks where tenant = $1 and object_uuid = $2', [tenant, objectUuid]);
  return Number(kept?.seen_at ?? nowMs);
}

/** What a feed writes of a record: its values and times, in the object's context, in the order of `uuids`. */
export interface FeedRecord {
  uuid: string;
  vals: Record<string, unknown>;
  created_at: number;
  updated_at: number;
}

/** The records of a page the engine found (`uuids`, in order), as a feed writes them. */
export async function feedRecords(sql: Sql, tenant: string, objectUuid: string, uuids: readonly string[]): Promise<FeedRecord[]> {
  if (uuids.length === 0) return [];
  const rows = await sql.query<FeedRecord>(
    `select r.uuid::text as uuid, r.vals, r.created_at::float8 as created_at, r.updated_at::float8 as updated_at
       from records r where r.tenant = $1 and r.object_uuid = $2::uuid and r.uuid = any($3::uuid[])`,
    [tenant, objectUuid, uuids],
    'feeds_records_page',
  );
  const byUuid = new Map(rows.map((r) => [r.uuid, r]));
  return uuids.flatMap((u) => byUuid.get(u) ?? []);
}
