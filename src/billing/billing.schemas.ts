import { z } from 'zod';
import { billingAccess } from '../../aggregates/billing/billing.decider.js';
import { billingStatuses } from '../../aggregates/billing/billing.events.js';
import type { BillingRow } from '../../read-models/billing.queries.js';

export const billingSchema = z
  .object({
    companyUuid: z.string(),
    status: z.enum(billingStatuses),
    trialEndsAt: z.number().int().nullable().describe('Epoch ms; the end of a TRIAL'),
    access: z.enum(['full', 'warn', 'read-only']).describe('What the edge allows now: read-only refuses writes with 402 (docs/billing.md)'),
    reason: z.string(),
    updatedAt: z.number().int().nullable(),
    revision: z.number().int().describe('The billing stream revision (-1: never set, ACTIVE)'),
  })
  .meta({ id: 'BillingStatus' });

export const toBilling = (companyUuid: string, r: BillingRow, now: number): z.infer<typeof billingSchema> => ({
  companyUuid,
  status: r.status,
  trialEndsAt: r.trial_ends_at,
  access: billingAccess(r.status, r.trial_ends_at, now),
  reason: r.reason,
  updatedAt: r.updated_at,
  revision: r.revision,
});

const change = {
  status: z.enum(billingStatuses),
  trialEndsAt: z.number().int().min(0).max(8_640_000_000_000).nullable().default(null).describe('Epoch ms; required with TRIAL, absent otherwise'),
  reason: z.string().max(500).default(''),
};

export const setBillingBody = z.object(change).meta({ id: 'SetBillingStatus' });

/** The billing provider's hook body (signed with Standard Webhooks). */
export const billingHookBody = z
  .object({
    type: z.literal('billing.status.changed'),
    data: z.object({ companyUuid: z.uuid(), ...change }),
  })
  .meta({ id: 'BillingHook' });

export const setupLinkBody = z.object({ token: z.string().min(20).max(200).regex(/^[A-Za-z0-9_-]+$/) }).meta({ id: 'BillingSetupLink' });
