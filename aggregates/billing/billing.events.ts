import { z } from 'zod';

/** What a company may do (docs/billing.md): TRIAL until its end, ACTIVE, PAST_DUE (warned), SUSPENDED (read only). */
export const billingStatuses = ['TRIAL', 'ACTIVE', 'PAST_DUE', 'SUSPENDED'] as const;
export type BillingStatus = (typeof billingStatuses)[number];

export const billingStatusChanged = z.object({
  type: z.literal('BillingStatusChanged'),
  version: z.literal(1),
  data: z.object({
    status: z.enum(billingStatuses),
    /** Epoch ms; only with TRIAL. */
    trialEndsAt: z.number().int().nullable(),
    reason: z.string(),
    source: z.enum(['admin', 'hook']),
    /** The billing hook's `webhook-id` (its idempotency key), when the hook made the change. */
    webhookId: z.string().nullable(),
    /** The billing hook's `webhook-timestamp` in epoch ms: an older hook than the last one changes nothing. */
    hookSentAt: z.number().int().nullable(),
  }),
});

export const billingEventSchema = z.discriminatedUnion('type', [billingStatusChanged]);
export type BillingEvent = z.infer<typeof billingEventSchema>;
export const billingEventTypes = billingEventSchema.options.map((o) => o.shape.type.value);

/** A company's billing stream lives in the company's own tenant: one per company. */
export const BILLING_STREAM_PREFIX = 'billing-';
export const billingStream = (companyUuid: string) => `${BILLING_STREAM_PREFIX}${companyUuid}`;
/** The company a billing stream is named by (the inverse of `billingStream`). */
export const billingCompanyOfStream = (streamId: string) => streamId.slice(BILLING_STREAM_PREFIX.length);
