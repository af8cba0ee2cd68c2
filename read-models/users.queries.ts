import type { Sql } from '../ports/sql.js';
import type { CompanyRole } from '../aggregates/membership/roles.js';

// Users are platform-wide (a user belongs to several companies), so these queries take no tenant.

export interface UserRow {
  user_uuid: string;
  email: string;
  firstname: string;
  lastname: string;
  email_verified: boolean;
  last_company_uuid: string | null;
  created_at: number;
  updated_at: number;
}

const userColumns = 'user_uuid, email, firstname, lastname, email_verified, last_company_uuid, created_at, updated_at';

export async function userByUuid(sql: Sql, userUuid: string): Promise<UserRow | null> {
  const [row] = await sql.query<UserRow>(`select ${userColumns} from users where user_uuid = $1`, [userUuid]);
  return row ?? null;
}

export async function userByEmail(sql: Sql, email: string): Promise<UserRow | null> {
  const [row] = await sql.query<UserRow>(`select ${userColumns} from users where lower(email) = lower($1)`, [email.trim()]);
  return row ?? null;
}

export interface UserCompanyRow {
  company_uuid: string;
  name: string;
  subdomain: string;
  role: CompanyRole;
  scopes: string[];
  joined_at: number;
}

/** The companies a user is an active member of, oldest membership first. */
export async function companiesOfUser(sql: Sql, userUuid: string): Promise<UserCompanyRow[]> {
  return sql.query<UserCompanyRow>(
    `select c.company_uuid, c.name, c.subdomain, m.role, m.scopes, m.created_at as joined_at
       from memberships m join companies c on c.company_uuid = m.tenant
      where m.user_uuid = $1 and m.active
      order by m.created_at, c.company_uuid`,
    [userUuid],
  );
}
