import type { Sql } from '../db/db.js';
import { hashToken, newToken } from './tokens.js';

export type TokenPurpose = 'reset' | 'verify';

/** Issues an e-mailed one-time token; earlier unused tokens of the same purpose stop working. */
export async function issueOneTimeToken(sql: Sql, args: { userUuid: string; purpose: TokenPurpose; now: number; ttlMs: number }): Promise<string> {
  const token = newToken();
  await sql.query('update one_time_tokens set used_at = $3 where user_uuid = $1 and purpose = $2 and used_at is null', [args.userUuid, args.purpose, args.now]);
  await sql.query('insert into one_time_tokens (token_hash, user_uuid, purpose, created_at, expires_at) values ($1, $2, $3, $4, $5)', [
    hashToken(token),
    args.userUuid,
    args.purpose,
    args.now,
    args.now + args.ttlMs,
  ]);
  return token;
}

/** The user of a live (unused, unexpired) token, without using it up. */
export async function peekOneTimeToken(sql: Sql, token: string, purpose: TokenPurpose, now: number): Promise<string | null> {
  const [row] = await sql.query<{ user_uuid: string }>(
    'select user_uuid from one_time_tokens where token_hash = $1 and purpose = $2 and used_at is null and expires_at > $3',
    [hashToken(token), purpose, now],
  );
  return row?.user_uuid ?? null;
}

/** Uses the token up; false when another request used it first or it expired meanwhile. */
export async function consumeOneTimeToken(sql: Sql, token: string, purpose: TokenPurpose, now: number): Promise<boolean> {
  const rows = await sql.query(
    'update one_time_tokens set used_at = $3 where token_hash = $1 and purpose = $2 and used_at is null and expires_at > $3 returning user_uuid',
    [hashToken(token), purpose, now],
  );
  return rows.length === 1;
}
