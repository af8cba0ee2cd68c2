import { DomainError } from '../../aggregates/kernel/errors.js';
import type { Sql } from '../db/db.js';

export interface LoginThrottleOptions {
  maxPerAccount: number;
  maxPerAddress: number;
  windowMs: number;
}

interface FailureRow {
  key: string;
  failures: number;
  window_started_at: number;
}

/**
 * Failed logins counted per account and per client address in a fixed window that starts at the
 * first failure. Past the limit every attempt for that key, right password or not, is a 429 until
 * the window ends. A success clears the account's count.
 */
export function makeLoginThrottle(sql: Sql, options: LoginThrottleOptions) {
  const keysOf = (email: string, address: string) => [`a:${email.trim().toLowerCase()}`, `ip:${address}`] as const;
  const limitOf = (key: string) => (key.startsWith('a:') ? options.maxPerAccount : options.maxPerAddress);

  return {
    /** Throws RATE_LIMITED (429, Retry-After) when the account or the address is locked. */
    async check(email: string, address: string, now: number) {
      const keys = keysOf(email, address);
      const rows = await sql.query<FailureRow>('select key, failures, window_started_at from login_failures where key = any($1::text[])', [[...keys]]);
      const locked = rows.filter((r) => r.failures >= limitOf(r.key) && r.window_started_at + options.windowMs > now);
      if (locked.length === 0) return;
      const until = Math.max(...locked.map((r) => r.window_started_at + options.windowMs));
      const seconds = Math.max(1, Math.ceil((until - now) / 1000));
      throw new DomainError('RATE_LIMITED', 'Too many failed logins', [
        {
          message: 'Too many failed logins for this account or from this address',
          type: 'GENERAL',
          correctionSuggestion: `Wait ${seconds} s (see Retry-After) before trying again, or reset the password with POST /api/v2/auth/password/forgot`,
        },
      ], { retryAfterSeconds: seconds });
    },

    async fail(email: string, address: string, now: number) {
      for (const key of keysOf(email, address)) {
        await sql.query(
          `insert into login_failures (key, failures, window_started_at) values ($1, 1, $2)
           on conflict (key) do update set
             failures = case when login_failures.window_started_at + $3 <= $2 then 1 else login_failures.failures + 1 end,
             window_started_at = case when login_failures.window_started_at + $3 <= $2 then $2 else login_failures.window_started_at end`,
          [key, now, options.windowMs],
        );
      }
    },

    async succeed(email: string) {
      await sql.query('delete from login_failures where key = $1', [keysOf(email, '')[0]]);
    },
  };
}
export type LoginThrottle = ReturnType<typeof makeLoginThrottle>;
