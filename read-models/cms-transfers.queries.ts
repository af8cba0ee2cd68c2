import type { V1Project, V2Live, WebProject } from '../aggregates/cms-transfer/cms-transfer.events.js';
import type { TransferState } from '../aggregates/cms-transfer/cms-transfer.decider.js';
import type { Sql } from '../ports/sql.js';

export interface CmsTransferRow {
  tenant: string;
  state: Exclude<TransferState, 'not_started'>;
  transfer_uuid: string;
  project: WebProject;
  live: V2Live | null;
  v1: V1Project | null;
  created_at: number;
  updated_at: number;
  created_by: string | null;
  updated_by: string | null;
  revision: number;
}

export interface CmsTransferHistoryRow {
  tenant: string;
  revision: number;
  transfer_uuid: string;
  type: string;
  from_state: TransferState;
  to_state: TransferState;
  data: Record<string, unknown>;
  at: number;
  by: string | null;
  request_id: string;
}

/** The company's transfer now; null: never started (v1 live). */
export async function cmsTransferOf(sql: Sql, tenant: string): Promise<CmsTransferRow | null> {
  const [row] = await sql.query<CmsTransferRow>('select * from rm_cms_transfers where tenant = $1', [tenant]);
  return row ?? null;
}

/**
 * Which runtime serves the company's live site: `v2` (with the hostname, schema and repository)
 * after a cutover, else `v1`. For readers such as a content API or a host router.
 */
export async function liveRuntimeOf(sql: Sql, tenant: string): Promise<{ runtime: 'v1' } | ({ runtime: 'v2' } & V2Live)> {
  const row = await cmsTransferOf(sql, tenant);
  return row?.state === 'cut_over' && row.live ? { runtime: 'v2', ...row.live } : { runtime: 'v1' };
}

/** Every transition of the company's transfers, oldest first. */
export async function cmsTransferHistory(sql: Sql, tenant: string, o: { limit: number; offset: number }): Promise<{ rows: CmsTransferHistoryRow[]; total: number }> {
  const [count] = await sql.query<{ n: number }>('select count(*)::int as n from rm_cms_transfer_history where tenant = $1', [tenant]);
  const rows = await sql.query<CmsTransferHistoryRow>('select * from rm_cms_transfer_history where tenant = $1 order by revision limit $2 offset $3', [tenant, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}
