import type { Sql } from '../ports/sql.js';
import type { BillingStatus } from '../aggregates/billing/billing.events.js';

export interface BillingRow {
  status: BillingStatus;
  trial_ends_at: number | null;
  reason: string;
  changed_by_hook: string | null;
  updated_at: number | null;
  updated_by: string | null;
  revision: number;
}

/** A company's billing status; a company that never had one is ACTIVE (revision -1). */
export async function billingOf(sql: Sql, tenant: string): Promise<BillingRow> {
  const [row] = await sql.query<BillingRow>('select status, trial_ends_at, reason, changed_by_hook, updated_at, updated_by, revision from rm_billing where tenant = $1', [tenant]);
  return row ?? { status: 'ACTIVE', trial_ends_at: null, reason: '', changed_by_hook: null, updated_at: null, updated_by: null, revision: -1 };
}

/** Keeps the SHA-256 of a setup link's token; earlier unused links of the company stop working. */
export async function keepSetupToken(sql: Sql, tenant: string, o: { tokenHash: string; userUuid: string; now: number; expiresAt: number }): Promise<void> {
  await sql.query('update billing_setup_tokens set used_at = $2 where tenant = $1 and used_at is null', [tenant, o.now]);
  await sql.query('insert into billing_setup_tokens (token_hash, tenant, user_uuid, created_at, expires_at) values ($1, $2, $3, $4, $5)', [o.tokenHash, tenant, o.userUuid, o.now, o.expiresAt]);
}

/** Uses a live setup token up: its company, or null when unknown, used or expired. */
export async function useSetupToken(sql: Sql, tokenHash: string, now: number): Promise<{ tenant: string; user_uuid: string } | null> {
  const [row] = await sql.query<{ tenant: string; user_uuid: string }>(
    'update billing_setup_tokens set used_at = $2 where token_hash = $1 and used_at is null and expires_at > $2 returning tenant, user_uuid',
    [tokenHash, now],
  );
  return row ?? null;
}
