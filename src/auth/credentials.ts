import type { Sql } from '../db/db.js';

// Password hashes live in a plain table, not in events: see the 0002_identity migration.

export async function passwordHashOf(sql: Sql, userUuid: string): Promise<string | null> {
  const [row] = await sql.query<{ password_hash: string }>('select password_hash from user_credentials where user_uuid = $1', [userUuid]);
  return row?.password_hash ?? null;
}

export async function setPasswordHash(sql: Sql, userUuid: string, passwordHash: string, now: number) {
  await sql.query(
    `insert into user_credentials (user_uuid, password_hash, updated_at) values ($1, $2, $3)
     on conflict (user_uuid) do update set password_hash = excluded.password_hash, updated_at = excluded.updated_at`,
    [userUuid, passwordHash, now],
  );
}
