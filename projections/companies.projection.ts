import type { StoredEvent } from '../aggregates/kernel/events.js';
import { companyEventTypes, type CompanyEvent } from '../aggregates/company/company.events.js';
import type { Projection } from './projection.js';

/** `companies`: one row per company stream, guarded by the stream revision. */
export const companiesProjection: Projection = {
  name: 'companies',
  tables: ['companies'],
  handles: companyEventTypes,
  async apply(stored, tx) {
    const event = stored as StoredEvent<CompanyEvent> & CompanyEvent;
    const at = stored.metadata.occurredAt;
    switch (event.type) {
      case 'CompanyCreated': {
        const d = event.data;
        await tx.query(
          `insert into companies (company_uuid, name, subdomain, settings, managed_by, copied_from, created_by, updated_by, created_at, updated_at, revision)
           values ($1, $2, $3, $4::jsonb, $5, $6, $7, $10, $8, $8, $9) on conflict (company_uuid) do nothing`,
          [d.companyUuid, d.name, d.subdomain, JSON.stringify(d.settings), d.managedBy, d.copiedFrom, d.createdBy, at, stored.revision, stored.metadata.userUuid],
        );
        return;
      }
      case 'CompanyUpdated':
        await tx.query(
          `update companies set name = coalesce($4, name), subdomain = coalesce($5, subdomain), updated_at = $3, updated_by = $6, revision = $2
           where company_uuid = $1 and revision < $2`,
          [stored.tenant, stored.revision, at, event.data.name ?? null, event.data.subdomain ?? null, stored.metadata.userUuid],
        );
        return;
      case 'CompanySettingsUpdated':
        await tx.query(
          `update companies set settings = settings || $4::jsonb, updated_at = $3, updated_by = $5, revision = $2 where company_uuid = $1 and revision < $2`,
          [stored.tenant, stored.revision, at, JSON.stringify(event.data.settings), stored.metadata.userUuid],
        );
        return;
    }
  },
};
