import { z } from 'zod';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import { TOPIC_GRAMMAR } from '../../aggregates/webhook/webhook.topics.js';
import {
  MAX_BACKOFF_MS,
  MAX_RETRIES,
  MIN_BACKOFF_MS,
  RELATION_LIMIT_DEFAULT,
  RELATION_LIMIT_MAX,
  RETRY_DEFAULTS,
  webhookFilterSchema,
  webhookFormatSchema,
  webhookFormats,
} from '../../aggregates/webhook/webhook.schemas.js';
import type { AttemptRow, DeliveryRow, WebhookRow } from '../../read-models/webhooks.queries.js';

const filter = webhookFilterSchema;
/** The filter as answered: the stored groups (no input transforms, so responses serialise). */
const filterOut = z
  .object({ groups: z.array(z.object({ items: z.array(z.record(z.string(), z.unknown())) })) })
  .meta({ id: 'WebhookFilterView', description: 'Filter groups (spec 2.4) as stored: operators in their canonical spelling' });

const fields = {
  url: z.string().min(1).max(2048).describe('http(s) URL that receives the deliveries; must reach a public address'),
  secret: z.string().min(8).max(512).describe('Signing secret (write-only: never returned). whsec_<base64> or any text of 8+ characters'),
  topic: z.string().min(1).max(300).describe(`One of: ${TOPIC_GRAMMAR}`),
  name: z.string().max(200).optional(),
  label: z.string().max(200).optional(),
  webhookFormat: webhookFormatSchema.optional().describe('LEGACY or structured (default structured)'),
  filter: filter.nullable().optional(),
  includeRelations: z.array(z.string().min(1).max(200)).max(20).optional().describe('Relation names whose related records are added to the payload'),
  relationFilters: z.record(z.string(), filter).optional().describe('Per included relation: only related records matching this filter'),
  relationLimit: z.number().int().min(0).max(RELATION_LIMIT_MAX).optional().describe(`Related records per relation (default ${RELATION_LIMIT_DEFAULT})`),
  retryEnabled: z.boolean().optional().describe(`Default ${RETRY_DEFAULTS.retryEnabled}`),
  maxRetries: z.number().int().min(0).max(MAX_RETRIES).optional().describe(`Retries after the first attempt (default ${RETRY_DEFAULTS.maxRetries})`),
  retryBackoffMs: z.number().int().min(MIN_BACKOFF_MS).max(MAX_BACKOFF_MS).optional().describe(`Delay before the first retry, doubled each time, plus jitter (default ${RETRY_DEFAULTS.retryBackoffMs})`),
};

/** Spec 2.9 on create: url, secret and topic required. */
export const createWebhookBodySchema = z.object(fields).meta({ id: 'WebhookCreate' });
/** On update every field is optional; a given secret replaces the old one. */
export const updateWebhookBodySchema = z
  .object({ ...fields, url: fields.url.optional(), secret: fields.secret.optional(), topic: fields.topic.optional() })
  .meta({ id: 'WebhookUpdate' });

/** Spec 2.9 as answered: every field but the secret. */
export const webhookSchema = z
  .object({
    uuid: z.string(),
    appUuid: z.string().nullable(),
    name: z.string(),
    label: z.string(),
    url: z.string(),
    topic: z.string(),
    webhookFormat: z.enum(webhookFormats),
    filter: filterOut.nullable(),
    includeRelations: z.array(z.string()),
    relationFilters: z.record(z.string(), filterOut),
    relationLimit: z.number().int(),
    retryEnabled: z.boolean(),
    maxRetries: z.number().int(),
    retryBackoffMs: z.number().int(),
    ...auditFields,
  })
  .meta({ id: 'Webhook' });
export type WebhookView = z.infer<typeof webhookSchema>;

export const toWebhook = (row: WebhookRow, actors: Actors): WebhookView => ({
  uuid: row.webhook_uuid,
  appUuid: row.app_uuid,
  name: row.name,
  label: row.label,
  url: row.url,
  topic: row.topic,
  webhookFormat: row.webhook_format,
  filter: row.filter,
  includeRelations: row.include_relations,
  relationFilters: row.relation_filters,
  relationLimit: row.relation_limit,
  retryEnabled: row.retry_enabled,
  maxRetries: row.max_retries,
  retryBackoffMs: row.retry_backoff_ms,
  ...auditFieldsOf(row, actors),
});

export const formatSchema = z.object({ name: z.enum(webhookFormats), description: z.string() }).meta({ id: 'WebhookFormat' });

export const webhookFormatList = [
  { name: 'LEGACY' as const, description: 'Flat body {id, topic, event, timestamp (epoch ms), companyUuid, objectName, uuid, record {properties: [{name, type, value}], relations}, changes: [{name, before, after}]}' },
  { name: 'structured' as const, description: 'Standard Webhooks envelope {id, type, timestamp (ISO 8601), company, webhook, data {action, objectName, record {properties: {name: value}}, changes, relations, event}}' },
];

export const deliverySchema = z
  .object({
    uuid: z.string(),
    messageId: z.string().describe('The webhook-id header: the same on every attempt and on a redelivery'),
    webhookUuid: z.string(),
    source: z.enum(['live', 'replay', 'redelivery']),
    topic: z.string(),
    eventType: z.string().nullable(),
    eventPosition: z.number().int().nullable().describe('Position of the event in the log'),
    eventCheckpoint: z.string().nullable().describe('Opaque log checkpoint of the event; replay can start after it'),
    streamId: z.string().nullable(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    lastResponseCode: z.number().int().nullable(),
    lastLatencyMs: z.number().int().nullable(),
    lastError: z.string().nullable().describe('Our description of the last failure; never the receiver body'),
    lastAttemptAt: z.number().int().nullable(),
    nextAttemptAt: z.number().int().nullable().describe('When the next attempt is due (pending only)'),
    createdAt: z.number().int(),
    completedAt: z.number().int().nullable(),
    redeliveryOf: z.string().nullable(),
    replayUuid: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const attemptSchema = z
  .object({ attempt: z.number().int(), startedAt: z.number().int(), responseCode: z.number().int().nullable(), latencyMs: z.number().int(), outcome: z.enum(['succeeded', 'failed']), error: z.string().nullable() })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const deliveryDetailSchema = deliverySchema.extend({ payload: z.unknown(), attemptLog: z.array(attemptSchema) }).meta({ id: 'WebhookDeliveryDetail' });

export const toDelivery = (row: DeliveryRow): z.infer<typeof deliverySchema> => ({
  uuid: row.delivery_uuid,
  messageId: row.message_id,
  webhookUuid: row.webhook_uuid,
  source: row.source,
  topic: row.topic,
  eventType: row.event_type,
  eventPosition: row.event_position,
  eventCheckpoint: row.event_checkpoint,
  streamId: row.stream_id,
  status: row.status,
  attempts: row.attempts,
  lastResponseCode: row.last_status_code,
  lastLatencyMs: row.last_latency_ms,
  lastError: row.last_error,
  lastAttemptAt: row.last_attempt_at,
  nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
  createdAt: row.created_at,
  completedAt: row.completed_at,
  redeliveryOf: row.redelivery_of,
  replayUuid: row.replay_uuid,
});

export const toAttempt = (row: AttemptRow): z.infer<typeof attemptSchema> => ({
  attempt: row.attempt,
  startedAt: row.started_at,
  responseCode: row.status_code,
  latencyMs: row.latency_ms,
  outcome: row.outcome,
  error: row.error,
});
