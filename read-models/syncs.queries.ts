import type { SyncMapping } from '../aggregates/sync/sync.events.js';
import type { Sql } from '../ports/sql.js';
import type { AuditRow } from './audit-row.js';
import { likeContains } from './list-spec.js';

export interface SyncRow extends AuditRow {
  tenant: string;
  sync_uuid: string;
  name: string;
  label: string;
  source_object_uuid: string;
  source_object_name: string;
  target_object_uuid: string;
  target_object_name: string;
  relation_uuid: string;
  mappings: SyncMapping[];
  enabled: boolean;
}

/** A sync of the tenant, deleted or not (null when the tenant has none with this uuid). */
export async function syncByUuid(sql: Sql, tenant: string, syncUuid: string): Promise<SyncRow | null> {
  const [row] = await sql.query<SyncRow>('select * from rm_syncs where tenant = $1 and sync_uuid = $2', [tenant, syncUuid]);
  return row ?? null;
}


/** The tenant's live syncs (or the deleted ones), oldest first. */
export async function listSyncs(sql: Sql, tenant: string, o: { deleted: boolean; query?: string; limit: number; offset: number }): Promise<{ rows: SyncRow[]; total: number }> {
  const where = `tenant = $1 and (deleted_at is not null) = $2 and ($3::text is null or name ilike $3 or label ilike $3 or source_object_name ilike $3 or target_object_name ilike $3)`;
  const params = [tenant, o.deleted, o.query ? likeContains(o.query) : null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_syncs where ${where}`, params);
  const rows = await sql.query<SyncRow>(`select * from rm_syncs where ${where} order by created_at, sync_uuid limit $4 offset $5`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

/** Live, enabled syncs whose source or target is one of the objects: what the sync reactor acts on. */
export async function activeSyncsOf(sql: Sql, tenant: string): Promise<SyncRow[]> {
  return sql.query<SyncRow>('select * from rm_syncs where tenant = $1 and deleted_at is null and enabled order by created_at', [tenant]);
}
