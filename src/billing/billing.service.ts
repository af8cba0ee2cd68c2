import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { billingAccess, billingDecider, type BillingCommand } from '../../aggregates/billing/billing.decider.js';
import { billingStream, type BillingStatus } from '../../aggregates/billing/billing.events.js';
import { billingOf, keepSetupToken, useSetupToken, type BillingRow } from '../../read-models/billing.queries.js';
import { companyOf } from '../../read-models/companies.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { Mailer } from '../mail/mailer.js';
import { hashToken, newToken } from '../auth/tokens.js';
import { setupMail } from './billing.mails.js';

export interface BillingChange {
  status: BillingStatus;
  trialEndsAt: number | null;
  reason: string;
}

/** What the edge needs of a company's status, cached per process for `cacheMs`. */
export interface BillingGate {
  status: BillingStatus;
  trialEndsAt: number | null;
  access: 'full' | 'warn' | 'read-only';
}

const MAX_CACHED = 10_000;

/**
 * A company's billing status: set by SUPER_ADMIN or by the signed billing hook (each change a
 * `BillingStatusChanged` on the company's billing stream), read by the edge on every request.
 */
export function makeBillingService(deps: { db: Db; store: EventStore; mailer: Mailer; appUrl: string; setupTtlMs: number; checkoutUrl?: string; cacheMs: number }) {
  const { db, store } = deps;
  const cache = new Map<string, { row: BillingRow; until: number }>();

  async function row(tenant: string, now: number): Promise<BillingRow> {
    const hit = cache.get(tenant);
    if (hit && hit.until > now) return hit.row;
    const fresh = await billingOf(db, tenant);
    if (deps.cacheMs > 0) {
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(tenant, { row: fresh, until: now + deps.cacheMs });
    }
    return fresh;
  }

  const gateOf = (r: BillingRow, now: number): BillingGate => ({ status: r.status, trialEndsAt: r.trial_ends_at, access: billingAccess(r.status, r.trial_ends_at, now) });

  async function change(ctx: CommandContext, command: BillingCommand) {
    if (!(await companyOf(db, ctx.tenant))) throw notFound('Company', ctx.tenant);
    const handled = await handleCommand({ store, decider: billingDecider, streamId: billingStream(ctx.tenant), command, context: ctx });
    cache.delete(ctx.tenant);
    return { changed: handled.events.length > 0, billing: await billingOf(db, ctx.tenant) };
  }

  return {
    /** The company's status (ACTIVE when it never had one). */
    status: (tenant: string) => billingOf(db, tenant),

    /** The status the edge enforces: from the per-process cache when it holds one, else a promise. */
    gate(tenant: string, now: number): BillingGate | Promise<BillingGate> {
      const hit = cache.get(tenant);
      if (hit && hit.until > now) return gateOf(hit.row, now);
      return row(tenant, now).then((r) => gateOf(r, now));
    },

    /** SUPER_ADMIN sets a company's status (`ctx.tenant`: the company). */
    set: (ctx: CommandContext, input: BillingChange) => change(ctx, { type: 'SetBillingStatus', ...input, hook: null }),

    /** The billing hook, its signature checked: a delivery applied already changes nothing. */
    fromHook: (ctx: CommandContext, input: BillingChange, hook: { webhookId: string; sentAt: number }) => change(ctx, { type: 'SetBillingStatus', ...input, hook }),

    /** Mails a one-time setup link to the calling ADMIN; earlier links of the company stop working. */
    async sendSetupMail(ctx: CommandContext & { userUuid: string }, email: string) {
      const token = newToken();
      await keepSetupToken(db, ctx.tenant, { tokenHash: hashToken(token), userUuid: ctx.userUuid, now: ctx.now, expiresAt: ctx.now + deps.setupTtlMs });
      const company = await companyOf(db, ctx.tenant);
      await deps.mailer.send(setupMail(email, company?.name ?? '', deps.appUrl, token, Math.round(deps.setupTtlMs / 60_000)));
      return { expiresAt: ctx.now + deps.setupTtlMs };
    },

    /** Uses a setup link: the company's status and where to pay. Unknown, used and expired links are one answer. */
    async openSetupLink(token: string, now: number) {
      const used = await useSetupToken(db, hashToken(token), now);
      if (!used) {
        throw new DomainError('NOT_FOUND', 'Setup link not valid', [
          { message: 'The setup link is unknown, used already or expired', type: 'NOT_FOUND', correctionSuggestion: 'Ask for a new setup e-mail with POST /api/v2/billing/setup-email' },
        ]);
      }
      const billing = await billingOf(db, used.tenant);
      const checkoutUrl = deps.checkoutUrl ? `${deps.checkoutUrl}${deps.checkoutUrl.includes('?') ? '&' : '?'}company=${used.tenant}` : null;
      return { companyUuid: used.tenant, billing, checkoutUrl };
    },
  };
}
export type BillingService = ReturnType<typeof makeBillingService>;
