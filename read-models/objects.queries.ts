import type { Sql } from '../ports/sql.js';
import { listClauses, type ListColumns, type ListRequest } from './list-spec.js';
import { pageOffset } from '../aggregates/kernel/paging.js';

export interface ObjectRow {
  object_uuid: string;
  name: string;
  label: string;
  plural: string;
  description: string;
  icon: string;
  grp: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  created_by: string | null;
  updated_by: string | null;
  deleted_by: string | null;
  revision: number;
}

const columns = 'object_uuid, name, label, plural, description, icon, grp, created_at, updated_at, deleted_at, created_by, updated_by, deleted_by, revision';

/** The fields an object list may filter and sort on. */
export const objectListColumns: ListColumns = {
  uuid: { column: 'object_uuid', type: 'uuid' },
  name: { column: 'name', type: 'text' },
  label: { column: 'label', type: 'text' },
  plural: { column: 'plural', type: 'text' },
  description: { column: 'description', type: 'text' },
  group: { column: 'grp', type: 'text' },
  createdAt: { column: 'created_at', type: 'number' },
  updatedAt: { column: 'updated_at', type: 'number' },
  deletedAt: { column: 'deleted_at', type: 'number' },
};

/** One object of the tenant, deleted or not; null when the tenant has no such object. */
export async function objectByUuid(sql: Sql, tenant: string, objectUuid: string): Promise<ObjectRow | null> {
  const [row] = await sql.query<ObjectRow>(`select ${columns} from rm_objects where tenant = $1 and object_uuid = $2`, [tenant, objectUuid]);
  return row ?? null;
}

export async function objectByName(sql: Sql, tenant: string, name: string): Promise<ObjectRow | null> {
  const [row] = await sql.query<ObjectRow>(`select ${columns} from rm_objects where tenant = $1 and name = $2`, [tenant, name]);
  return row ?? null;
}

/** A page of the tenant's objects (live ones unless a filter names deletedAt). */
export async function listObjects(sql: Sql, tenant: string, request: ListRequest): Promise<{ rows: ObjectRow[]; total: number }> {
  const { where, params, orderBy } = listClauses(request, objectListColumns, { params: [tenant], search: ['name', 'label', 'plural'], order: 'name, object_uuid' });
  const cond = ['tenant = $1', ...where].join(' and ');
  const n = params.length;
  const rows = await sql.query<ObjectRow>(`select ${columns} from rm_objects where ${cond} order by ${orderBy} limit $${n + 1} offset $${n + 2}`, [...params, request.limit, pageOffset(request.page, request.limit)]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from rm_objects where ${cond}`, params);
  return { rows, total: count?.n ?? 0 };
}
