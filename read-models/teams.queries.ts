import type { Sql } from '../ports/sql.js';
import { likeContains } from './list-spec.js';

export interface TeamRow {
  team_uuid: string;
  name: string;
  description: string;
  scopes: string[];
  created_at: number;
  updated_at: number;
  created_by: string | null;
  updated_by: string | null;
  deleted_by: string | null;
  revision: number;
}

export interface TeamMemberRow {
  user_uuid: string;
  email: string;
  firstname: string;
  lastname: string;
}

const columns = 'team_uuid, name, description, scopes, created_at, updated_at, created_by, updated_by, deleted_by, revision';

/** A live (not deleted) team of the tenant. */
export async function teamOf(sql: Sql, tenant: string, teamUuid: string): Promise<TeamRow | null> {
  const [row] = await sql.query<TeamRow>(`select ${columns} from teams where tenant = $1 and team_uuid = $2 and deleted_at is null`, [tenant, teamUuid]);
  return row ?? null;
}

/** The tenant's live teams by name; `query`: only those whose name contains it (case-insensitive, as text). */
export async function teamsOf(sql: Sql, tenant: string, o: { query?: string; limit: number; offset: number }): Promise<{ rows: TeamRow[]; total: number }> {
  const where = 'tenant = $1 and deleted_at is null and ($2::text is null or name ilike $2)';
  const params = [tenant, o.query ? likeContains(o.query) : null];
  const rows = await sql.query<TeamRow>(`select ${columns} from teams where ${where} order by name, team_uuid limit $3 offset $4`, [...params, o.limit, o.offset]);
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from teams where ${where}`, params);
  return { rows, total: count?.n ?? 0 };
}

/** Members of the given teams of the tenant, by team uuid (a user removed from the company drops out). */
export async function membersOfTeams(sql: Sql, tenant: string, teamUuids: string[]): Promise<Map<string, TeamMemberRow[]>> {
  const rows = await sql.query<TeamMemberRow & { team_uuid: string }>(
    `select tm.team_uuid, u.user_uuid, u.email, u.firstname, u.lastname
       from team_members tm join users u on u.user_uuid = tm.user_uuid
       join memberships m on m.tenant = tm.tenant and m.user_uuid = tm.user_uuid and m.active
      where tm.tenant = $1 and tm.team_uuid = any($2::uuid[])
      order by u.lastname, u.firstname, u.user_uuid`,
    [tenant, teamUuids],
  );
  const byTeam = new Map<string, TeamMemberRow[]>(teamUuids.map((t) => [t, []]));
  for (const { team_uuid, ...member } of rows) byTeam.get(team_uuid)?.push(member);
  return byTeam;
}

/** The live teams a record is assigned to (for the records side of team assignment). */
export async function teamsOfRecord(sql: Sql, tenant: string, recordUuid: string): Promise<TeamRow[]> {
  return sql.query<TeamRow>(
    `select ${columns.split(', ').map((c) => `t.${c}`).join(', ')}
       from team_records tr join teams t on t.tenant = tr.tenant and t.team_uuid = tr.team_uuid and t.deleted_at is null
      where tr.tenant = $1 and tr.record_uuid = $2 order by t.name, t.team_uuid`,
    [tenant, recordUuid],
  );
}

/** The records assigned to a team of the tenant. */
export async function recordsOfTeam(sql: Sql, tenant: string, teamUuid: string): Promise<string[]> {
  const rows = await sql.query<{ record_uuid: string }>('select record_uuid from team_records where tenant = $1 and team_uuid = $2 order by assigned_at, record_uuid', [tenant, teamUuid]);
  return rows.map((r) => r.record_uuid);
}
