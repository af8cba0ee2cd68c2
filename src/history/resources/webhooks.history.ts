import type { StoredEvent } from '../../../aggregates/kernel/events.js';
import { webhookStream, type WebhookEvent } from '../../../aggregates/webhook/webhook.events.js';
import { webhookOfOwner } from '../../../read-models/resource-history.queries.js';
import type { WebhookRow } from '../../../read-models/webhooks.queries.js';
import { companyActor } from '../../auth/actor.js';
import type { Db } from '../../db/db.js';
import { toWebhook } from '../../webhooks/webhooks.schemas.js';
import type { ResourceHistoryAdapter } from '../resource-history.js';
import { auditFold } from './audit-fold.js';
import { columnsOf } from './snake-columns.js';

/**
 * Webhooks: `rm_webhooks` as projections/webhooks.projection.ts writes it. The signing secret is
 * never in the log (`webhook_secrets`), nor in the GET's answer, so in neither history nor asOf.
 * `scope` is the owner the slice's routes resolve (the company, or an app installed in it).
 */
export const webhooksHistory = (db: Db): ResourceHistoryAdapter<WebhookRow> => ({
  kind: 'Webhook',
  historyPath: '/api/v2/webhooks/{uuid}/history',
  stream: webhookStream,
  async find(request, uuid, scope) {
    const owner = (scope as { tenant: string; appUuid: string | null } | undefined) ?? { tenant: companyActor(request).tenant, appUuid: null };
    const row = await webhookOfOwner(db, owner.tenant, uuid, owner.appUuid);
    return row && { tenant: owner.tenant, row };
  },
  evolve(row, stored: StoredEvent, current) {
    const event = stored as unknown as WebhookEvent;
    switch (event.type) {
      case 'WebhookCreated': {
        const { webhookUuid: _w, appUuid, ...settings } = event.data;
        return { tenant: current.tenant, webhook_uuid: current.webhook_uuid, idx: current.idx, app_uuid: appUuid, ...(columnsOf(settings) as Partial<WebhookRow>), ...auditFold.created(stored) } as WebhookRow;
      }
      case 'WebhookUpdated':
        return row && { ...row, ...(columnsOf(event.data.changes) as Partial<WebhookRow>), ...auditFold.updated(stored) };
      case 'WebhookDeleted':
        return row && { ...row, ...auditFold.deleted(stored) };
      default:
        return row;
    }
  },
  render: toWebhook,
});
