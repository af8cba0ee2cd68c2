import type { FilterGroups, FilterItem, SortItem } from '../aggregates/record-filter/filter.schema.js';
import type { ViewColumn, ViewSharing } from '../aggregates/view/view.events.js';
import type { Sql } from '../ports/sql.js';
import type { AuditRow } from './audit-row.js';
import { likeContains } from './list-spec.js';

export interface ViewRow extends AuditRow {
  tenant: string;
  view_uuid: string;
  object_uuid: string;
  object_name: string;
  name: string;
  columns: ViewColumn[];
  filters: FilterItem[];
  groups: FilterGroups['groups'];
  sort: SortItem[];
  page_size: number;
  group_by: string | null;
  sharing: ViewSharing;
  team_uuid: string | null;
  owner_uuid: string | null;
}

/** Who reads: a view is visible to its owner, to everyone (company), to its team's members, and to whoever may share (team views). */
export interface ViewReader {
  userUuid: string;
  canShare: boolean;
}

const visible = (alias: string) => `(${alias}.owner_uuid = $2::uuid or ${alias}.sharing = 'company'
  or (${alias}.sharing = 'team' and ($3::boolean or exists (select 1 from team_members tm where tm.tenant = ${alias}.tenant::uuid and tm.team_uuid = ${alias}.team_uuid and tm.user_uuid = $2::uuid))))`;

/** A view of the tenant that the reader may see, deleted or not (null when there is none). */
export async function viewFor(sql: Sql, tenant: string, reader: ViewReader, viewUuid: string): Promise<ViewRow | null> {
  const [row] = await sql.query<ViewRow>(`select v.* from rm_views v where v.tenant = $1 and v.view_uuid = $4::uuid and ${visible('v')}`, [tenant, reader.userUuid, reader.canShare, viewUuid]);
  return row ?? null;
}

/** A view of the tenant, whoever may see it (what a write reads back). */
export async function viewByUuid(sql: Sql, tenant: string, viewUuid: string): Promise<ViewRow | null> {
  const [row] = await sql.query<ViewRow>('select * from rm_views where tenant = $1 and view_uuid = $2', [tenant, viewUuid]);
  return row ?? null;
}

/** The views of one object that the reader may see, live (or the deleted ones), in the order they were made. */
export async function viewsOfObject(
  sql: Sql,
  tenant: string,
  reader: ViewReader,
  objectUuid: string,
  o: { deleted: boolean; query?: string; limit: number; offset: number },
): Promise<{ rows: ViewRow[]; total: number }> {
  const where = `v.tenant = $1 and ${visible('v')} and v.object_uuid = $4::uuid and (v.deleted_at is not null) = $5 and ($6::text is null or v.name ilike $6)`;
  const params = [tenant, reader.userUuid, reader.canShare, objectUuid, o.deleted, o.query ? likeContains(o.query) : null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_views v where ${where}`, params);
  const rows = await sql.query<ViewRow>(`select v.* from rm_views v where ${where} order by v.created_at, v.view_uuid limit $7 offset $8`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}
