import { z } from 'zod';
import { filterGroupsSchema, type FilterGroups } from '../record-filter/filter.schema.js';

/** Payload formats of spec 6.3; docs/webhooks.md shows both. */
export const webhookFormats = ['LEGACY', 'structured'] as const;
export const webhookFormatSchema = z.preprocess(
  (v) => (typeof v === 'string' ? (v.toUpperCase() === 'LEGACY' ? 'LEGACY' : v.toLowerCase() === 'structured' ? 'structured' : v) : v),
  z.enum(webhookFormats),
);
export type WebhookFormat = (typeof webhookFormats)[number];

/**
 * Spec 2.9 `filter`: the records' filter groups (spec 2.4), `{groups: [{items}]}`: a record matches
 * when every item of some group holds. The same shape and evaluator as record lists.
 */
export const webhookFilterSchema = filterGroupsSchema;
export type WebhookFilter = FilterGroups;

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
