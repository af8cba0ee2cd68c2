import type { TraitName } from '../aggregates/trait/trait.schemas.js';
import type { Sql } from '../ports/sql.js';

export interface TraitRow {
  object_uuid: string;
  trait: TraitName;
  config: Record<string, unknown>;
  created_at: number;
  created_by: string | null;
  updated_by: string | null;
  updated_at: number;
  revision: number;
}

const columns = 'object_uuid, trait, config, created_at, updated_at, created_by, updated_by, revision';

/** A trait the object has; null when it has not. */
export async function traitOf(sql: Sql, tenant: string, objectUuid: string, trait: TraitName): Promise<TraitRow | null> {
  const [row] = await sql.query<TraitRow>(`select ${columns} from rm_traits where tenant = $1 and object_uuid = $2 and trait = $3 and removed_at is null`, [tenant, objectUuid, trait]);
  return row ?? null;
}

export async function traitsOf(sql: Sql, tenant: string, objectUuid: string, limit: number, offset: number): Promise<{ rows: TraitRow[]; total: number }> {
  const where = 'tenant = $1 and object_uuid = $2 and removed_at is null';
  const rows = await sql.query<TraitRow>(`select ${columns} from rm_traits where ${where} order by trait limit $3 offset $4`, [tenant, objectUuid, limit, offset]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from rm_traits where ${where}`, [tenant, objectUuid]);
  return { rows, total: count?.n ?? 0 };
}

/** The object that holds the company's User trait, if any. */
export async function userTraitObject(sql: Sql, tenant: string): Promise<string | null> {
  const [row] = await sql.query<{ object_uuid: string }>(`select object_uuid from rm_traits where tenant = $1 and trait = 'User' and removed_at is null`, [tenant]);
  return row?.object_uuid ?? null;
}
