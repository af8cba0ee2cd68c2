import type { Sql } from '../ports/sql.js';
import type { CompanyRole } from '../aggregates/membership/roles.js';

export interface MemberRow {
  user_uuid: string;
  email: string;
  firstname: string;
  lastname: string;
  role: CompanyRole;
  scopes: string[];
  created_at: number;
  updated_at: number;
}

const select = `select m.user_uuid, u.email, u.firstname, u.lastname, m.role, m.scopes, m.created_at, m.updated_at
                  from memberships m join users u on u.user_uuid = m.user_uuid`;

export async function memberOf(sql: Sql, tenant: string, userUuid: string): Promise<MemberRow | null> {
  const [row] = await sql.query<MemberRow>(`${select} where m.tenant = $1 and m.user_uuid = $2 and m.active`, [tenant, userUuid]);
  return row ?? null;
}

export async function membersOf(sql: Sql, tenant: string, limit: number, offset: number): Promise<{ rows: MemberRow[]; total: number }> {
  const rows = await sql.query<MemberRow>(`${select} where m.tenant = $1 and m.active order by u.lastname, u.firstname, m.user_uuid limit $2 offset $3`, [tenant, limit, offset]);
  const [count] = await sql.query<{ n: number }>('select count(*)::int8 as n from memberships where tenant = $1 and active', [tenant]);
  return { rows, total: count?.n ?? 0 };
}

/** Active ADMINs of the company other than `userUuid` (a company keeps at least one). */
export async function otherAdminCount(sql: Sql, tenant: string, userUuid: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>(
    `select count(*)::int8 as n from memberships where tenant = $1 and user_uuid <> $2 and active and role = 'ADMIN'`,
    [tenant, userUuid],
  );
  return row?.n ?? 0;
}
