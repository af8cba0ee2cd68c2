import type { Sql } from '../ports/sql.js';
import type { CompanySettings } from '../aggregates/company/company-settings.js';

export interface CompanyRow {
  company_uuid: string;
  name: string;
  subdomain: string;
  settings: CompanySettings;
  managed_by: string | null;
  copied_from: string | null;
  created_by: string | null;
  updated_by: string | null;
  created_at: number;
  updated_at: number;
  revision: number;
}

const columns = 'company_uuid, name, subdomain, settings, managed_by, copied_from, created_by, updated_by, created_at, updated_at, revision';

/** A company is its own tenant: this reads the tenant's own row. */
export async function companyOf(sql: Sql, tenant: string): Promise<CompanyRow | null> {
  const [row] = await sql.query<CompanyRow>(`select ${columns} from companies where company_uuid = $1`, [tenant]);
  return row ?? null;
}

/** Public lookup by subdomain (no tenant: the caller is not signed in). */
export async function companyBySubdomain(sql: Sql, subdomain: string): Promise<CompanyRow | null> {
  const [row] = await sql.query<CompanyRow>(`select ${columns} from companies where subdomain = lower($1)`, [subdomain.trim()]);
  return row ?? null;
}

export interface CompanyPage {
  rows: CompanyRow[];
  total: number;
}

async function pageOf(sql: Sql, where: string, params: unknown[], limit: number, offset: number): Promise<CompanyPage> {
  const n = params.length;
  const rows = await sql.query<CompanyRow>(`select ${columns} from companies ${where} order by name, company_uuid limit $${n + 1} offset $${n + 2}`, [...params, limit, offset]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from companies ${where}`, params);
  return { rows, total: count?.n ?? 0 };
}

/** The companies a user is an active member of. */
export const companiesOfMember = (sql: Sql, userUuid: string, limit: number, offset: number) =>
  pageOf(sql, 'where company_uuid in (select tenant from memberships where user_uuid = $1 and active)', [userUuid], limit, offset);

/** Every company (SUPER_ADMIN only: the route checks). */
export const allCompanies = (sql: Sql, limit: number, offset: number) => pageOf(sql, '', [], limit, offset);

/** The companies a reseller company manages. */
export const companiesManagedBy = (sql: Sql, tenant: string, limit: number, offset: number) => pageOf(sql, 'where managed_by = $1', [tenant], limit, offset);
