import type { Sql } from '../ports/sql.js';
import type { WebhookRow } from './webhooks.queries.js';

/**
 * Reads of the history of every resource (src/history/) that the slices' own queries do not
 * make: a deleted resource's history stays readable.
 */

/** A webhook of the owner (the company's own: appUuid null; an app's), deleted or not. */
export async function webhookOfOwner(sql: Sql, tenant: string, webhookUuid: string, appUuid: string | null): Promise<WebhookRow | null> {
  const [row] = await sql.query<WebhookRow>('select * from rm_webhooks where tenant = $1 and webhook_uuid = $2 and app_uuid is not distinct from $3::uuid', [tenant, webhookUuid, appUuid]);
  return row ?? null;
}
