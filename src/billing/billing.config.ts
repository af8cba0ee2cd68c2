import { z } from 'zod';

/** Billing status and its setup e-mail (issue 40, docs/billing.md). Spread into src/config.ts. */
export const billingConfigShape = {
  // The Standard Webhooks secret (whsec_...) the billing provider signs its hooks with; unset: the hook answers 503.
  BILLING_WEBHOOK_SECRET: z.string().min(16).optional(),
  // How long another process may enforce a company's billing status it cached (0: no cache).
  BILLING_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  // How long a setup e-mail's link works.
  BILLING_SETUP_TTL_MS: z.coerce.number().int().min(60_000).default(48 * 3600_000),
  // Where a used setup link hands the company over to the payment provider (its checkout page), if any.
  BILLING_CHECKOUT_URL: z.string().url().optional(),
};
