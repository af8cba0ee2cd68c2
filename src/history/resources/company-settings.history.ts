import { companyStream, type CompanyEvent } from '../../../aggregates/company/company.events.js';
import type { StoredEvent } from '../../../aggregates/kernel/events.js';
import { companyOf, type CompanyRow } from '../../../read-models/companies.queries.js';
import { companyActor } from '../../auth/actor.js';
import { toPublicSettings } from '../../companies/companies.schemas.js';
import type { Db } from '../../db/db.js';
import type { ResourceHistoryAdapter } from '../resource-history.js';

/**
 * Company settings (spec 2.10): the `companies` row as projections/companies.projection.ts writes
 * it, answered as `GET companies/{uuid}/settings` does. The stream is the company's; its name
 * and subdomain changes are in the history too (the name is in the answer). Readable, as that
 * GET is, by the company's members and SUPER_ADMIN; another company is a 404.
 */
export const companySettingsHistory = (db: Db): ResourceHistoryAdapter<CompanyRow> => ({
  kind: 'Company',
  historyPath: '/api/v2/companies/{uuid}/settings/history',
  stream: companyStream,
  async find(request, uuid) {
    const actor = companyActor(request);
    if (uuid !== actor.tenant && !actor.superAdmin) return null;
    const row = await companyOf(db, uuid);
    return row && { tenant: uuid, row };
  },
  evolve(row, stored: StoredEvent, current) {
    const event = stored as unknown as CompanyEvent;
    const at = stored.metadata.occurredAt;
    const by = stored.metadata.userUuid;
    switch (event.type) {
      case 'CompanyCreated': {
        const d = event.data;
        return { ...current, name: d.name, subdomain: d.subdomain, settings: d.settings, managed_by: d.managedBy, copied_from: d.copiedFrom, created_by: d.createdBy, updated_by: by, created_at: at, updated_at: at, revision: stored.revision };
      }
      case 'CompanyUpdated':
        return row && { ...row, name: event.data.name ?? row.name, subdomain: event.data.subdomain ?? row.subdomain, updated_at: at, updated_by: by, revision: stored.revision };
      case 'CompanySettingsUpdated':
        return row && { ...row, settings: { ...row.settings, ...event.data.settings }, updated_at: at, updated_by: by, revision: stored.revision };
      default:
        return row;
    }
  },
  render: (row) => toPublicSettings(row),
});
