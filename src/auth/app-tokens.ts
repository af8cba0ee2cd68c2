import type { Sql } from '../db/db.js';
import type { SessionActorRow } from './actor-cache.js';
import { hashToken, newToken } from './tokens.js';

/** App access tokens start so: a reader of a log or a leaked header tells them from a user's session. */
export const APP_TOKEN_PREFIX = 'apt_';

/**
 * Issues an app's access token (the client-credentials grant, docs/apps.md): the token goes to the
 * app once, only its hash is stored, with the installation (tenant, app), the client id that
 * asked and the scopes it holds.
 */
export async function openAppToken(sql: Sql, a: { tenant: string; appUuid: string; clientId: string; scopes: string[]; now: number; ttlMs: number }) {
  const token = `${APP_TOKEN_PREFIX}${newToken()}`;
  const expiresAt = a.now + a.ttlMs;
  await sql.query('delete from app_access_tokens where expires_at < $1', [a.now]);
  await sql.query('insert into app_access_tokens (token_hash, tenant, app_uuid, client_id, scopes, created_at, expires_at) values ($1, $2, $3, $4, $5::jsonb, $6, $7)', [
    hashToken(token),
    a.tenant,
    a.appUuid,
    a.clientId,
    JSON.stringify(a.scopes),
    a.now,
    expiresAt,
  ]);
  return { token, expiresAt };
}

/**
 * The actor of an app access token, shaped as a session's: the installation's company as tenant,
 * role USER, exactly the scopes the token holds that the installation still grants, and the app's
 * uuid as its user uuid (what it writes names the app). Null when the token is unknown or expired,
 * the app uninstalled, or the client id that asked for it rotated away (after its grace period).
 */
export async function loadAppTokenActor(sql: Sql, tokenHash: string, now: number): Promise<SessionActorRow | null> {
  const [row] = await sql.query<SessionActorRow>(
    `select t.app_uuid::text as user_uuid, '' as email, false as email_verified, t.tenant as selected_company, true as company_exists,
            'USER' as role,
            coalesce((select jsonb_agg(s.value order by s.value) from jsonb_array_elements_text(t.scopes) s where i.granted_scopes ? s.value), '[]'::jsonb) as scopes,
            '[]'::jsonb as team_scopes, t.expires_at, t.app_uuid::text as app_uuid
       from app_access_tokens t
       join rm_app_installations i on i.tenant = t.tenant and i.app_uuid = t.app_uuid and i.installed
      where t.token_hash = $1 and t.expires_at > $2
        and (i.credentials->>'clientId' = t.client_id or (i.previous_credentials->>'clientId' = t.client_id and i.previous_valid_until > $2))`,
    [tokenHash, now],
  );
  return row ?? null;
}
