import { cmsTransferEventTypes, CMS_TRANSFER_STREAM_PREFIX, type CmsTransferEvent } from '../aggregates/cms-transfer/cms-transfer.events.js';
import type { StoredEvent } from '../aggregates/kernel/events.js';
import type { Projection } from './projection.js';

const toState: Record<CmsTransferEvent['type'], string> = { CmsTransferAttached: 'attached', CmsTransferCutOver: 'cut_over', CmsTransferRolledBack: 'rolled_back' };

/**
 * `rm_cms_transfers` (the company's transfer now) and `rm_cms_transfer_history` (every
 * transition), both guarded by the stream revision (idempotent).
 */
export const cmsTransfersProjection: Projection = {
  name: 'cms-transfers',
  tables: ['rm_cms_transfers', 'rm_cms_transfer_history'],
  handles: cmsTransferEventTypes,
  async apply(stored, tx) {
    if (stored.streamId !== CMS_TRANSFER_STREAM_PREFIX) return;
    const event = stored as StoredEvent<CmsTransferEvent> & CmsTransferEvent;
    const { tenant, revision } = stored;
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    const [before] = await tx.query<{ state: string; revision: number }>('select state, revision from rm_cms_transfers where tenant = $1', [tenant]);
    if (before && before.revision >= revision) return;
    const next = toState[event.type];
    await tx.query(
      `insert into rm_cms_transfer_history (tenant, revision, transfer_uuid, type, from_state, to_state, data, at, by, request_id)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10) on conflict do nothing`,
      [tenant, revision, event.data.transferUuid, event.type, before?.state ?? 'not_started', next, JSON.stringify(event.data), at, by, stored.metadata.requestId],
    );
    switch (event.type) {
      case 'CmsTransferAttached':
        await tx.query(
          `insert into rm_cms_transfers (tenant, state, transfer_uuid, project, live, v1, created_at, updated_at, created_by, updated_by, revision)
           values ($1, $2, $3, $4::jsonb, null, null, $5, $5, $6, $6, $7)
           on conflict (tenant) do update set state = excluded.state, transfer_uuid = excluded.transfer_uuid, project = excluded.project, live = null, v1 = null,
             updated_at = excluded.updated_at, updated_by = excluded.updated_by, revision = excluded.revision`,
          [tenant, next, event.data.transferUuid, JSON.stringify(event.data.project), at, by, revision],
        );
        return;
      case 'CmsTransferCutOver':
        await tx.query(`update rm_cms_transfers set state = $2, live = $3::jsonb, v1 = $4::jsonb, updated_at = $5, updated_by = $6, revision = $7 where tenant = $1`, [
          tenant, next, JSON.stringify(event.data.live), JSON.stringify(event.data.v1), at, by, revision,
        ]);
        return;
      case 'CmsTransferRolledBack':
        await tx.query(`update rm_cms_transfers set state = $2, live = null, v1 = $3::jsonb, updated_at = $4, updated_by = $5, revision = $6 where tenant = $1`, [
          tenant, next, JSON.stringify(event.data.v1), at, by, revision,
        ]);
        return;
    }
  },
};
