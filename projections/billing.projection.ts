import type { StoredEvent } from '../aggregates/kernel/events.js';
import { billingCompanyOfStream, billingEventTypes, type BillingEvent } from '../aggregates/billing/billing.events.js';
import type { Projection } from './projection.js';

/** `rm_billing`: a company's billing status, guarded by the billing stream's revision. */
export const billingProjection: Projection = {
  name: 'billing',
  tables: ['rm_billing'],
  handles: billingEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<BillingEvent> & BillingEvent;
    const d = event.data;
    await tx.query(
      `insert into rm_billing (tenant, status, trial_ends_at, reason, changed_by_hook, updated_at, updated_by, revision)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (tenant) do update set status = excluded.status, trial_ends_at = excluded.trial_ends_at, reason = excluded.reason,
         changed_by_hook = excluded.changed_by_hook, updated_at = excluded.updated_at, updated_by = excluded.updated_by, revision = excluded.revision
       where rm_billing.revision < excluded.revision`,
      [billingCompanyOfStream(stored.streamId), d.status, d.trialEndsAt, d.reason, d.webhookId, stored.metadata.occurredAt, stored.metadata.userUuid, stored.revision],
    );
  },
};
