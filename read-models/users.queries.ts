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

/** A user as an audit field shows them in one company: profile, membership there, team scopes there. */
export interface AuditUserRow {
  user_uuid: string;
  email: string;
  firstname: string;
  lastname: string;
  created_at: number;
  updated_at: number;
  revision: number;
  role: CompanyRole | null;
  active: boolean | null;
  scopes: string[] | null;
  team_scopes: string[];
}

/**
 * The users named by audit fields (createdBy, updatedBy, deletedBy, a record's user), with their
 * membership in the company `tenantUuid` (null: a tenant that is no company, e.g. a sandbox).
 * Only profile columns: never a credential.
 */
export async function auditUsers(sql: Sql, tenantUuid: string | null, userUuids: readonly string[]): Promise<AuditUserRow[]> {
  if (userUuids.length === 0) return [];
  return sql.query<AuditUserRow>(
    `select u.user_uuid, u.email, u.firstname, u.lastname, u.created_at, u.updated_at, u.revision,
            m.role, m.active, m.scopes,
            coalesce((select jsonb_agg(distinct sc.value) from team_members tm
                        join teams t on t.tenant = tm.tenant and t.team_uuid = tm.team_uuid and t.deleted_at is null
                        cross join lateral jsonb_array_elements_text(t.scopes) sc
                       where tm.tenant = $1::uuid and tm.user_uuid = u.user_uuid), '[]'::jsonb) as team_scopes
       from users u
       left join memberships m on m.tenant = $1::uuid and m.user_uuid = u.user_uuid
      where u.user_uuid = any($2::uuid[])`,
    [tenantUuid, userUuids],
    'audit_users',
  );
}
