import type { FilterGroups, FilterItem, SortItem } from '../aggregates/record-filter/filter.schema.js';
import type { Sql } from '../ports/sql.js';

export interface SavedFilterRow {
  filter_uuid: string;
  name: string;
  object_name: string;
  filters: FilterItem[];
  groups: FilterGroups['groups'];
  sort: SortItem[];
  created_by: string | null;
  updated_by: string | null;
  deleted_by: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  revision: number;
}

const columns = 'filter_uuid, name, object_name, filters, groups, sort, created_by, updated_by, deleted_by, created_at, updated_at, deleted_at, revision';

/** A saved filter of the tenant, deleted or not; null when there is none. */
export async function savedFilterOf(sql: Sql, tenant: string, filterUuid: string): Promise<SavedFilterRow | null> {
  const [row] = await sql.query<SavedFilterRow>(`select ${columns} from rm_saved_filters where tenant = $1 and filter_uuid = $2`, [tenant, filterUuid]);
  return row ?? null;
}

/** A page of the tenant's saved filters (live ones, or deleted ones too), by name; optionally of one object. */
export async function savedFiltersOf(sql: Sql, tenant: string, opts: { objectName?: string; deleted: boolean; limit: number; offset: number }): Promise<{ rows: SavedFilterRow[]; total: number }> {
  const where = `tenant = $1 and ($2::text is null or object_name = $2) and ($3 or deleted_at is null)`;
  const params = [tenant, opts.objectName ?? null, opts.deleted];
  const rows = await sql.query<SavedFilterRow>(`select ${columns} from rm_saved_filters where ${where} order by name, filter_uuid limit $4 offset $5`, [...params, opts.limit, opts.offset]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from rm_saved_filters where ${where}`, params);
  return { rows, total: Number(count?.n ?? 0) };
}
