import type { Cardinality, Direction, EdgePropertyDefinition, RelationDefinition } from '../aggregates/relation/relation.schemas.js';
import type { Sql } from '../ports/sql.js';
import { listClauses, type ListColumns, type ListRequest } from './list-spec.js';
import { pageOffset } from '../aggregates/kernel/paging.js';

export interface RelationRow {
  relation_uuid: string;
  name: string;
  label: string;
  description: string;
  from_object_uuid: string;
  to_object_uuid: string;
  cardinality: Cardinality;
  direction: Direction;
  from_name: string;
  to_name: string | null;
  edge_properties: EdgePropertyDefinition[];
  idx: number;
  created_at: number;
  created_by: string | null;
  updated_by: string | null;
  deleted_by: string | null;
  updated_at: number;
  deleted_at: number | null;
  revision: number;
}

const columns = `relation_uuid, name, label, description, from_object_uuid, to_object_uuid, cardinality, direction, from_name, to_name, edge_properties, idx,
                 created_at, updated_at, deleted_at, created_by, updated_by, deleted_by, revision`;

export const relationListColumns: ListColumns = {
  uuid: { column: 'relation_uuid', type: 'uuid' },
  name: { column: 'name', type: 'text' },
  label: { column: 'label', type: 'text' },
  cardinality: { column: 'cardinality', type: 'text' },
  direction: { column: 'direction', type: 'text' },
  fromObjectUuid: { column: 'from_object_uuid', type: 'uuid' },
  toObjectUuid: { column: 'to_object_uuid', type: 'uuid' },
  index: { column: 'idx', type: 'number' },
  createdAt: { column: 'created_at', type: 'number' },
  updatedAt: { column: 'updated_at', type: 'number' },
  deletedAt: { column: 'deleted_at', type: 'number' },
};

export const toRelationDefinition = (row: RelationRow): RelationDefinition => ({
  name: row.name,
  label: row.label,
  description: row.description,
  fromObjectUuid: row.from_object_uuid,
  toObjectUuid: row.to_object_uuid,
  cardinality: row.cardinality,
  direction: row.direction,
  fromName: row.from_name,
  toName: row.to_name,
  edgeProperties: row.edge_properties,
  index: row.idx,
});

/** A relation of the tenant, soft-deleted or not; null when there is none or it was purged. */
export async function relationOf(sql: Sql, tenant: string, relationUuid: string): Promise<RelationRow | null> {
  const [row] = await sql.query<RelationRow>(`select ${columns} from rm_relations where tenant = $1 and relation_uuid = $2 and purged_at is null`, [tenant, relationUuid]);
  return row ?? null;
}

/** The relation called `name` that starts at the object (soft-deleted or not). */
export async function relationByName(sql: Sql, tenant: string, fromObjectUuid: string, name: string): Promise<RelationRow | null> {
  const [row] = await sql.query<RelationRow>(`select ${columns} from rm_relations where tenant = $1 and from_object_uuid = $2 and name = $3 and purged_at is null`, [tenant, fromObjectUuid, name]);
  return row ?? null;
}

/**
 * Which relations a list covers: all of the tenant's; those where an object is origin or target;
 * or those from one object to another (plus the BIDIRECTIONAL ones the other way round, which can
 * be walked from either end).
 */
export type RelationScope = { kind: 'all' } | { kind: 'object'; objectUuid: string } | { kind: 'between'; fromObjectUuid: string; toObjectUuid: string };

function scopeCondition(scope: RelationScope): { sql: string; params: unknown[] } {
  switch (scope.kind) {
    case 'all':
      return { sql: '', params: [] };
    case 'object':
      return { sql: 'and (from_object_uuid = $2 or to_object_uuid = $2)', params: [scope.objectUuid] };
    case 'between':
      return {
        sql: `and ((from_object_uuid = $2 and to_object_uuid = $3) or (direction = 'BIDIRECTIONAL' and from_object_uuid = $3 and to_object_uuid = $2))`,
        params: [scope.fromObjectUuid, scope.toObjectUuid],
      };
  }
}

export async function listRelations(sql: Sql, tenant: string, scope: RelationScope, request: ListRequest): Promise<{ rows: RelationRow[]; total: number }> {
  const s = scopeCondition(scope);
  const { where, params, orderBy } = listClauses(request, relationListColumns, { params: [tenant, ...s.params], search: ['name', 'label', 'from_name', 'to_name'], order: 'idx, name, relation_uuid' });
  const cond = ['tenant = $1 and purged_at is null', s.sql.replace(/^and /, ''), ...where].filter(Boolean).join(' and ');
  const n = params.length;
  const rows = await sql.query<RelationRow>(`select ${columns} from rm_relations where ${cond} order by ${orderBy} limit $${n + 1} offset $${n + 2}`, [...params, request.limit, pageOffset(request.page, request.limit)]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from rm_relations where ${cond}`, params);
  return { rows, total: count?.n ?? 0 };
}

/** Relations (live) of the tenant among `uuids`: for updateIndices, which checks them all before writing. */
export async function relationsAmong(sql: Sql, tenant: string, uuids: readonly string[]): Promise<RelationRow[]> {
  return sql.query<RelationRow>(`select ${columns} from rm_relations where tenant = $1 and relation_uuid = any($2::uuid[]) and purged_at is null order by idx, name`, [tenant, uuids]);
}
