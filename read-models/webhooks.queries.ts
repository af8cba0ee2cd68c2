import type { WebhookFilter, WebhookFormat } from '../aggregates/webhook/webhook.schemas.js';
import type { Sql } from '../ports/sql.js';
import { recordColumns, type RecordRow } from './records.queries.js';
import type { AuditRow } from './audit-row.js';
import { likeContains } from './list-spec.js';

export interface WebhookRow extends AuditRow {
  tenant: string;
  webhook_uuid: string;
  app_uuid: string | null;
  name: string;
  label: string;
  url: string;
  topic: string;
  webhook_format: WebhookFormat;
  filter: WebhookFilter | null;
  include_relations: string[];
  relation_filters: Record<string, WebhookFilter>;
  relation_limit: number;
  retry_enabled: boolean;
  max_retries: number;
  retry_backoff_ms: number;
}

/** A live (not deleted) webhook of the tenant; `appUuid` undefined: any owner, null: the company's own. */
export async function webhookByUuid(sql: Sql, tenant: string, webhookUuid: string, appUuid?: string | null): Promise<WebhookRow | null> {
  const rows = await sql.query<WebhookRow>(
    `select * from rm_webhooks where tenant = $1 and webhook_uuid = $2 and deleted_at is null
       and ($3::boolean or app_uuid is not distinct from $4::uuid)`,
    [tenant, webhookUuid, appUuid === undefined, appUuid ?? null],
  );
  return rows[0] ?? null;
}

export interface WebhookListOptions {
  /** Substring of the topic (POST /webhooks/index/{topic}). */
  topicContains?: string;
  /** Free text over name, label, url and topic. */
  query?: string;
  appUuid?: string | null;
  limit: number;
  offset: number;
}


/** The tenant's live webhooks, oldest first, with the total count. */
export async function listWebhooks(sql: Sql, tenant: string, o: WebhookListOptions): Promise<{ rows: WebhookRow[]; total: number }> {
  const where = `tenant = $1 and deleted_at is null and app_uuid is not distinct from $2::uuid
    and ($3::text is null or topic like $3) and ($4::text is null or name ilike $4 or label ilike $4 or url ilike $4 or topic ilike $4)`;
  const params = [tenant, o.appUuid ?? null, o.topicContains ? likeContains(o.topicContains) : null, o.query ? likeContains(o.query) : null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from rm_webhooks where ${where}`, params);
  const rows = await sql.query<WebhookRow>(`select * from rm_webhooks where ${where} order by created_at, webhook_uuid limit $5 offset $6`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

/** An app's webhook hears nothing while the app is not installed in the webhook's company (docs/apps.md). */
export const APP_INSTALLED = `(w.app_uuid is null or exists (select 1 from rm_app_installations i where i.tenant = w.tenant and i.app_uuid = w.app_uuid and i.installed))`;

/** Every live webhook of a tenant (an uninstalled app's left out): what the delivery reactor matches events against. */
export async function liveWebhooks(sql: Sql, tenant: string): Promise<WebhookRow[]> {
  return sql.query<WebhookRow>(`select w.* from rm_webhooks w where w.tenant = $1 and w.deleted_at is null and ${APP_INSTALLED} order by w.created_at`, [tenant]);
}

/** The signing secret of a webhook (never part of any response). */
export async function webhookSecret(sql: Sql, tenant: string, webhookUuid: string): Promise<string | null> {
  const [row] = await sql.query<{ secret: string }>('select secret from webhook_secrets where tenant = $1 and webhook_uuid = $2', [tenant, webhookUuid]);
  return row?.secret ?? null;
}

export async function saveWebhookSecret(sql: Sql, tenant: string, webhookUuid: string, secret: string, now: number) {
  await sql.query(
    `insert into webhook_secrets (tenant, webhook_uuid, secret, updated_at) values ($1, $2, $3, $4)
     on conflict (tenant, webhook_uuid) do update set secret = excluded.secret, updated_at = excluded.updated_at`,
    [tenant, webhookUuid, secret, now],
  );
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliverySource = 'live' | 'replay' | 'redelivery';

export interface DeliveryRow {
  delivery_uuid: string;
  seq: number;
  tenant: string;
  webhook_uuid: string;
  message_id: string;
  source: DeliverySource;
  order_key: string;
  topic: string;
  event_type: string | null;
  event_checkpoint: string | null;
  event_position: number | null;
  stream_id: string | null;
  event_occurred_at: number | null;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  created_at: number;
  completed_at: number | null;
  redelivery_of: string | null;
  replay_uuid: string | null;
}

export interface AttemptRow {
  delivery_uuid: string;
  attempt: number;
  started_at: number;
  status_code: number | null;
  latency_ms: number;
  outcome: 'succeeded' | 'failed';
  error: string | null;
}

/** A webhook's delivery log, newest first. */
export async function listDeliveries(
  sql: Sql,
  tenant: string,
  webhookUuid: string,
  o: { status?: DeliveryStatus; limit: number; offset: number },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = 'tenant = $1 and webhook_uuid = $2 and ($3::text is null or status = $3)';
  const params = [tenant, webhookUuid, o.status ?? null];
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where ${where}`, params);
  const rows = await sql.query<DeliveryRow>(`select * from webhook_deliveries where ${where} order by seq desc limit $4 offset $5`, [...params, o.limit, o.offset]);
  return { rows, total: count?.n ?? 0 };
}

export async function deliveryByUuid(sql: Sql, tenant: string, webhookUuid: string, deliveryUuid: string): Promise<DeliveryRow | null> {
  const rows = await sql.query<DeliveryRow>('select * from webhook_deliveries where tenant = $1 and webhook_uuid = $2 and delivery_uuid = $3', [tenant, webhookUuid, deliveryUuid]);
  return rows[0] ?? null;
}

export async function attemptsOf(sql: Sql, deliveryUuid: string): Promise<AttemptRow[]> {
  return sql.query<AttemptRow>('select * from webhook_delivery_attempts where delivery_uuid = $1 order by attempt', [deliveryUuid]);
}

/** The newest live records of an object (primary or extended), for test payloads that want a real record. */
export async function newestRecordsOf(sql: Sql, tenant: string, objectName: string, limit: number): Promise<RecordRow[]> {
  return sql.query<RecordRow>(
    `select ${recordColumns} from records r where r.tenant = $1 and r.object_name = $2 and r.deleted_at is null order by r.updated_at desc, r.uuid limit $3`,
    [tenant, objectName, limit],
  );
}

/** Live properties of the tenant's live objects (optionally one object): the names 4-part property_changed topics may use. */
export async function propertyTopics(sql: Sql, tenant: string, objectName: string | null): Promise<{ object_name: string; property_name: string }[]> {
  return sql.query(
    `select o.name as object_name, p.name as property_name
       from rm_objects o join rm_properties p on p.tenant = o.tenant and p.object_uuid = o.object_uuid and p.deleted_at is null
      where o.tenant = $1 and o.deleted_at is null and ($2::text is null or o.name = $2)
      order by o.name, p.name limit 5000`,
    [tenant, objectName],
  );
}
