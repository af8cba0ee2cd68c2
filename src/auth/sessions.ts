import type { Sql } from '../db/db.js';
import { hashToken, newToken } from './tokens.js';
import { cachedActor, forgetActors, rememberActor, type SessionActorRow } from './actor-cache.js';
import { loadAppTokenActor } from './app-tokens.js';

export interface IssuedSession {
  token: string;
  expiresAt: number;
}

/** Opens a session: the token goes to the client once, only its hash is stored. */
export async function openSession(sql: Sql, args: { userUuid: string; selectedCompany: string | null; now: number; ttlMs: number }): Promise<IssuedSession> {
  const token = newToken();
  const expiresAt = args.now + args.ttlMs;
  await sql.query('insert into sessions (token_hash, user_uuid, selected_company, created_at, expires_at) values ($1, $2, $3, $4, $5)', [
    hashToken(token),
    args.userUuid,
    args.selectedCompany,
    args.now,
    expiresAt,
  ]);
  return { token, expiresAt };
}

export async function revokeSession(sql: Sql, sessionId: string, now: number) {
  await sql.query('update sessions set revoked_at = $2 where token_hash = $1 and revoked_at is null', [sessionId, now]);
  await forgetActors();
}

/** Ends every open session of a user (after a password reset). */
export async function revokeUserSessions(sql: Sql, userUuid: string, now: number) {
  await sql.query('update sessions set revoked_at = $2 where user_uuid = $1 and revoked_at is null', [userUuid, now]);
  await forgetActors();
}

export async function selectSessionCompany(sql: Sql, sessionId: string, companyUuid: string) {
  await sql.query('update sessions set selected_company = $2 where token_hash = $1', [sessionId, companyUuid]);
  await forgetActors();
}

/**
 * The live session, its user, the membership in the selected company and the scopes of the
 * user's teams there: one query, or none while the actor cache holds it (src/auth/actor-cache.ts).
 */
export async function loadSessionActor(sql: Sql, sessionId: string, now: number, cached = false): Promise<SessionActorRow | null> {
  if (cached) {
    const hit = cachedActor(sessionId, now);
    if (hit) return hit;
  }
  const [row] = await sql.query<SessionActorRow>(
    `select s.user_uuid, u.email, u.email_verified, s.selected_company, s.expires_at,
            exists (select 1 from companies c where c.company_uuid = s.selected_company) as company_exists,
            m.role, m.scopes,
            coalesce((select jsonb_agg(distinct sc.value) from team_members tm
                        join teams t on t.tenant = tm.tenant and t.team_uuid = tm.team_uuid and t.deleted_at is null
                        cross join lateral jsonb_array_elements_text(t.scopes) sc
                       where tm.tenant = s.selected_company and tm.user_uuid = s.user_uuid), '[]'::jsonb) as team_scopes
       from sessions s
       join users u on u.user_uuid = s.user_uuid
       left join memberships m on m.tenant = s.selected_company and m.user_uuid = s.user_uuid and m.active
      where s.token_hash = $1 and s.revoked_at is null and s.expires_at > $2`,
    [sessionId, now],
    'session_actor',
  );
  const found = row ?? (await loadAppTokenActor(sql, sessionId, now));
  if (found && cached) rememberActor(sessionId, found, now);
  return found ?? null;
}
