import { z } from 'zod';
import { webhookSettingsSchema } from './webhook.schemas.js';

const uuid = z.string().uuid();

/** A webhook of a company (appUuid null) or of an app installed in it. The secret is kept apart, never in the log. */
export const webhookCreated = z.object({
  type: z.literal('WebhookCreated'),
  version: z.literal(1),
  data: webhookSettingsSchema.extend({ webhookUuid: uuid, appUuid: uuid.nullable() }),
});
/** `changes` holds only the settings that changed; `secretRotated` says a new secret was set. */
export const webhookUpdated = z.object({
  type: z.literal('WebhookUpdated'),
  version: z.literal(1),
  data: z.object({ changes: webhookSettingsSchema.partial(), secretRotated: z.boolean() }),
});
export const webhookDeleted = z.object({ type: z.literal('WebhookDeleted'), version: z.literal(1), data: z.object({ webhookUuid: uuid }) });

export const webhookEventSchema = z.discriminatedUnion('type', [webhookCreated, webhookUpdated, webhookDeleted]);
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
export const webhookEventTypes = webhookEventSchema.options.map((o) => o.shape.type.value);

export const WEBHOOK_STREAM_PREFIX = 'webhook-';
export const webhookStream = (webhookUuid: string) => `${WEBHOOK_STREAM_PREFIX}${webhookUuid}`;
/** The uuid a webhook stream is named by (the inverse of `webhookStream`). */
export const webhookUuidOfStream = (streamId: string) => streamId.slice(WEBHOOK_STREAM_PREFIX.length);
