import type { StoredEvent } from '../aggregates/kernel/events.js';
import { dataCopyEventTypes, type DataCopyEvent } from '../aggregates/data-copy/data-copy.events.js';
import type { Projection } from './projection.js';

/**
 * `rm_company_copies` (one row per copy, in the copy's tenant, guarded by the stream revision) and
 * `rm_company_copy_uuids` (each source uuid and its copy's, keyed by the source uuid: idempotent).
 */
export const companyCopiesProjection: Projection = {
  name: 'company-copies',
  tables: ['rm_company_copies', 'rm_company_copy_uuids'],
  handles: dataCopyEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<DataCopyEvent> & DataCopyEvent;
    const { tenant, revision } = stored;
    const at = stored.metadata.occurredAt;
    const set = (sets: string, params: unknown[] = []) => tx.query(`update rm_company_copies set revision = $2, updated_at = $3, ${sets} where tenant = $1 and revision < $2`, [tenant, revision, at, ...params]);
    switch (event.type) {
      case 'CompanyDataCopyStarted': {
        const d = event.data;
        await tx.query(
          `insert into rm_company_copies (tenant, source_company_uuid, status, as_of_position, as_of_time, up_to_position, total, copied, created_at, updated_at, created_by, revision)
           values ($1, $2, 'copying', $3, $4, $5, $6, 0, $7, $7, $8, $9) on conflict do nothing`,
          [tenant, d.sourceCompanyUuid, d.asOf.position, d.asOf.time, d.upToPosition, d.total, at, stored.metadata.userUuid, revision],
        );
        return;
      }
      case 'CompanyDataCopyUuidsMapped':
        await tx.query(
          `insert into rm_company_copy_uuids (tenant, source_uuid, copy_uuid, kind)
           select $1, x.source, x.copy, x.kind from jsonb_to_recordset($2::jsonb) as x(source uuid, copy uuid, kind text) on conflict do nothing`,
          [tenant, JSON.stringify(event.data.pairs)],
        );
        await set('copied = copied');
        return;
      case 'CompanyDataCopyProgressed':
        await set('copied = $4', [event.data.copied]);
        return;
      case 'CompanyDataCopyFinished':
        await set(`status = 'finished', copied = $4`, [event.data.copied]);
        return;
      case 'CompanyDataCopyFailed':
        await set(`status = 'failed', failure = $4`, [event.data.reason]);
        return;
    }
  },
};
