import type { PropertyDefinition, PropertyFormat, PropertyOption, PropertyType } from '../aggregates/property/property.schemas.js';
import type { Sql } from '../ports/sql.js';
import { listClauses, type ListColumns, type ListRequest } from './list-spec.js';
import { pageOffset } from '../aggregates/kernel/paging.js';

export interface PropertyRow {
  property_uuid: string;
  object_uuid: string;
  name: string;
  label: string;
  type: PropertyType;
  format: PropertyFormat;
  options: PropertyOption[] | null;
  required: boolean;
  is_unique: boolean;
  min_length: number | null;
  max_length: number | null;
  min_value: number | null;
  max_value: number | null;
  pattern: string | null;
  description: string;
  icon: string;
  grp: string | null;
  relation_uuid: string | null;
  created_at: number;
  created_by: string | null;
  updated_by: string | null;
  deleted_by: string | null;
  updated_at: number;
  deleted_at: number | null;
  revision: number;
}

const columns = `property_uuid, object_uuid, name, label, type, format, options, required, is_unique, min_length, max_length, min_value, max_value,
                 pattern, description, icon, grp, relation_uuid, created_at, updated_at, deleted_at, created_by, updated_by, deleted_by, revision`;

export const propertyListColumns: ListColumns = {
  uuid: { column: 'property_uuid', type: 'uuid' },
  name: { column: 'name', type: 'text' },
  label: { column: 'label', type: 'text' },
  type: { column: 'type', type: 'text' },
  format: { column: 'format', type: 'text' },
  group: { column: 'grp', type: 'text' },
  required: { column: 'required', type: 'boolean' },
  unique: { column: 'is_unique', type: 'boolean' },
  createdAt: { column: 'created_at', type: 'number' },
  updatedAt: { column: 'updated_at', type: 'number' },
  deletedAt: { column: 'deleted_at', type: 'number' },
};

/** The definition of a property row, as records are validated against it. */
export const toDefinition = (row: PropertyRow): PropertyDefinition => ({
  name: row.name,
  label: row.label,
  type: row.type,
  format: row.format,
  options: row.options,
  required: row.required,
  unique: row.is_unique,
  minLength: row.min_length,
  maxLength: row.max_length,
  min: row.min_value,
  max: row.max_value,
  pattern: row.pattern,
  description: row.description,
  icon: row.icon,
  group: row.grp,
  relationUuid: row.relation_uuid,
});

/** A property of the tenant's object, deleted or not; null when there is none. */
export async function propertyOf(sql: Sql, tenant: string, objectUuid: string, propertyUuid: string): Promise<PropertyRow | null> {
  const [row] = await sql.query<PropertyRow>(`select ${columns} from rm_properties where tenant = $1 and object_uuid = $2 and property_uuid = $3`, [tenant, objectUuid, propertyUuid]);
  return row ?? null;
}

export async function propertyByName(sql: Sql, tenant: string, objectUuid: string, name: string): Promise<PropertyRow | null> {
  const [row] = await sql.query<PropertyRow>(`select ${columns} from rm_properties where tenant = $1 and object_uuid = $2 and name = $3`, [tenant, objectUuid, name]);
  return row ?? null;
}

/** The live (not deleted) properties of an object, in creation order. */
export async function livePropertiesOf(sql: Sql, tenant: string, objectUuid: string): Promise<PropertyRow[]> {
  return sql.query<PropertyRow>(`select ${columns} from rm_properties where tenant = $1 and object_uuid = $2 and deleted_at is null order by created_at, name`, [tenant, objectUuid]);
}

/** A page of an object's properties (live ones unless a filter names deletedAt). */
export async function listProperties(sql: Sql, tenant: string, objectUuid: string, request: ListRequest): Promise<{ rows: PropertyRow[]; total: number }> {
  const { where, params, orderBy } = listClauses(request, propertyListColumns, { params: [tenant, objectUuid], search: ['name', 'label'], order: 'created_at, name' });
  const cond = ['tenant = $1', 'object_uuid = $2', ...where].join(' and ');
  const n = params.length;
  const rows = await sql.query<PropertyRow>(`select ${columns} from rm_properties where ${cond} order by ${orderBy} limit $${n + 1} offset $${n + 2}`, [...params, request.limit, pageOffset(request.page, request.limit)]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from rm_properties where ${cond}`, params);
  return { rows, total: count?.n ?? 0 };
}
