import { z } from 'zod';

/** Payload formats of spec 6.3; docs/webhooks.md shows both. */
export const webhookFormats = ['LEGACY', 'structured'] as const;
export const webhookFormatSchema = z.preprocess(
  (v) => (typeof v === 'string' ? (v.toUpperCase() === 'LEGACY' ? 'LEGACY' : v.toLowerCase() === 'structured' ? 'structured' : v) : v),
  z.enum(webhookFormats),
);
export type WebhookFormat = (typeof webhookFormats)[number];

/** A filter item of spec 2.4, as webhooks keep it; the records' evaluator decides what it means. */
export const webhookFilterItemSchema = z
  .object({
    object: z.string().max(200).optional(),
    relation: z.string().max(200).optional(),
    relationDirection: z.string().max(40).optional(),
    property: z.string().max(200).optional(),
    relationIncluded: z.boolean().optional(),
    operator: z.string().min(1).max(60),
    value: z.unknown().optional(),
    smartContent: z.boolean().optional(),
    edgeProperty: z.boolean().optional(),
  })
  .loose();

/** Spec 2.9 `filter`: groups of items (items of a group all hold; any group may hold). */
export const webhookFilterSchema = z.object({
  groups: z.array(z.object({ items: z.array(webhookFilterItemSchema).max(50) })).max(20),
});
export type WebhookFilter = z.infer<typeof webhookFilterSchema>;

export const RETRY_DEFAULTS = { retryEnabled: true, maxRetries: 5, retryBackoffMs: 1000 } as const;
export const RELATION_LIMIT_DEFAULT = 10;
export const RELATION_LIMIT_MAX = 100;
export const MAX_RETRIES = 20;
export const MIN_BACKOFF_MS = 10;
export const MAX_BACKOFF_MS = 3_600_000;

/** Everything a webhook is configured with, except its secret (which never enters the log). */
export const webhookSettingsSchema = z.object({
  name: z.string(),
  label: z.string(),
  url: z.string(),
  topic: z.string(),
  webhookFormat: z.enum(webhookFormats),
  filter: webhookFilterSchema.nullable(),
  includeRelations: z.array(z.string()),
  relationFilters: z.record(z.string(), webhookFilterSchema),
  relationLimit: z.number().int(),
  retryEnabled: z.boolean(),
  maxRetries: z.number().int(),
  retryBackoffMs: z.number().int(),
});
export type WebhookSettings = z.infer<typeof webhookSettingsSchema>;
