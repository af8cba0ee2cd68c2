import type { Sql } from '../ports/sql.js';

export interface SandboxRow {
  tenant: string;
  sandbox_uuid: string;
  name: string;
  status: 'cloning' | 'ready' | 'failed';
  as_of_position: number | null;
  as_of_time: number | null;
  up_to_position: number;
  total: number;
  copied: number;
  last_position: number | null;
  failure: string | null;
  reactors_enabled: boolean;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  created_by: string | null;
  updated_by: string | null;
  deleted_by: string | null;
  revision: number;
}

const columns = `tenant, sandbox_uuid, name, status, as_of_position::int8 as as_of_position, as_of_time::int8 as as_of_time, up_to_position::int8 as up_to_position,
  total, copied, last_position::int8 as last_position, failure, reactors_enabled, created_at::int8 as created_at, updated_at::int8 as updated_at,
  deleted_at::int8 as deleted_at, created_by, updated_by, deleted_by, revision`;

/** A sandbox of the company (deleted or not), or null when the company has none with this uuid. */
export async function sandboxByUuid(sql: Sql, tenant: string, sandboxUuid: string): Promise<SandboxRow | null> {
  const [row] = await sql.query<SandboxRow>(`select ${columns} from rm_sandboxes where tenant = $1 and sandbox_uuid = $2`, [tenant, sandboxUuid]);
  return row ?? null;
}

/** The company's live sandboxes, newest first. */
export async function listSandboxes(sql: Sql, tenant: string, o: { limit: number; offset: number }): Promise<{ rows: SandboxRow[]; total: number }> {
  const rows = await sql.query<SandboxRow>(`select ${columns} from rm_sandboxes where tenant = $1 and deleted_at is null order by created_at desc, sandbox_uuid limit $2 offset $3`, [tenant, o.limit, o.offset]);
  const [count] = await sql.query<{ n: number }>('select count(*)::int4 as n from rm_sandboxes where tenant = $1 and deleted_at is null', [tenant]);
  return { rows, total: count?.n ?? 0 };
}

/**
 * The sandboxes among `tenants` (each a sandbox's uuid, when it is one), with whether their
 * reactors run and from which position: what the reactors' gate reads once per batch.
 */
export async function sandboxesAmong(sql: Sql, tenants: readonly string[]): Promise<{ sandbox_uuid: string; reactors_enabled: boolean; deleted: boolean; last_position: number | null }[]> {
  const uuids = tenants.filter((t) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(t));
  if (uuids.length === 0) return [];
  return sql.query(
    `select sandbox_uuid::text as sandbox_uuid, reactors_enabled, deleted_at is not null as deleted, last_position::int8 as last_position from rm_sandboxes where sandbox_uuid = any($1::uuid[])`,
    [uuids],
  );
}

/** The sandbox a request names in its header, whoever owns it (the caller checks the owner). */
export async function sandboxNamed(sql: Sql, sandboxUuid: string): Promise<SandboxRow | null> {
  const [row] = await sql.query<SandboxRow>(`select ${columns} from rm_sandboxes where sandbox_uuid = $1`, [sandboxUuid]);
  return row ?? null;
}

export interface CompanyCopyRow {
  tenant: string;
  source_company_uuid: string;
  status: 'copying' | 'finished' | 'failed';
  as_of_position: number | null;
  as_of_time: number | null;
  up_to_position: number;
  total: number;
  copied: number;
  failure: string | null;
  created_at: number;
  updated_at: number;
  created_by: string | null;
  revision: number;
}

/** The data copy that made the company `tenant` (null when it is no partner copy with data). */
export async function companyCopyOf(sql: Sql, tenant: string): Promise<CompanyCopyRow | null> {
  const [row] = await sql.query<CompanyCopyRow>('select * from rm_company_copies where tenant = $1', [tenant]);
  return row ?? null;
}

/** A page of a copy's uuid mapping (source uuid -> copy uuid), by kind then source uuid. */
export async function copiedUuids(sql: Sql, tenant: string, o: { kind?: string; limit: number; offset: number }): Promise<{ rows: { source_uuid: string; copy_uuid: string; kind: string }[]; total: number }> {
  const rows = await sql.query<{ source_uuid: string; copy_uuid: string; kind: string }>(
    `select source_uuid, copy_uuid, kind from rm_company_copy_uuids where tenant = $1 and ($2::text is null or kind = $2) order by kind, source_uuid limit $3 offset $4`,
    [tenant, o.kind ?? null, o.limit, o.offset],
  );
  const [count] = await sql.query<{ n: number }>('select count(*)::int4 as n from rm_company_copy_uuids where tenant = $1 and ($2::text is null or kind = $2)', [tenant, o.kind ?? null]);
  return { rows, total: count?.n ?? 0 };
}
