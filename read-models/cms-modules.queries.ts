import type { ModuleField } from '../aggregates/module/module.schemas.js';
import type { Sql } from '../ports/sql.js';
import type { AuditRow } from './audit-row.js';

export interface ModuleRow extends AuditRow {
  tenant: string;
  module_uuid: string;
  owner_uuid: string | null;
  name: string;
  label: string;
  description: string;
  fields: ModuleField[];
}

const columns = `tenant, module_uuid, owner_uuid, name, label, description, fields, idx, created_at::float8 as created_at, updated_at::float8 as updated_at,
  deleted_at::float8 as deleted_at, created_by, updated_by, deleted_by, revision`;

/** A live module of the tenant: a company one (owner null) or the owner's personal one. */
export async function moduleByUuid(sql: Sql, tenant: string, moduleUuid: string, owner: string | null): Promise<ModuleRow | null> {
  const [row] = await sql.query<ModuleRow>(
    `select ${columns} from rm_cms_modules where tenant = $1 and module_uuid = $2 and deleted_at is null and owner_uuid is not distinct from $3::uuid`,
    [tenant, moduleUuid, owner],
  );
  return row ?? null;
}

export async function listModules(sql: Sql, tenant: string, owner: string | null, limit: number, offset: number): Promise<{ rows: ModuleRow[]; total: number }> {
  const where = 'tenant = $1 and deleted_at is null and owner_uuid is not distinct from $2::uuid';
  const rows = await sql.query<ModuleRow>(`select ${columns} from rm_cms_modules where ${where} order by name limit $3 offset $4`, [tenant, owner, limit, offset]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_cms_modules where ${where}`, [tenant, owner]);
  return { rows, total: count?.n ?? 0 };
}

/** The definitions a user's page edits are checked against: the company's, and the user's personal ones (which win on a name). */
export async function moduleCatalogueRows(sql: Sql, tenant: string, userUuid: string | null): Promise<ModuleRow[]> {
  return sql.query<ModuleRow>(
    `select ${columns} from rm_cms_modules where tenant = $1 and deleted_at is null and (owner_uuid is null or owner_uuid = $2::uuid) order by owner_uuid nulls first`,
    [tenant, userUuid],
    'cms_module_catalogue',
  );
}
