import { z } from 'zod';
import { companySettingsSchema } from '../../aggregates/company/company-settings.js';
import type { CompanyRow } from '../../read-models/companies.queries.js';
import { actorFieldsOf, auditFields, auditFieldsWithout, type AuditRenderer, type Actors } from '../http/audit-fields.js';

export const companySchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    subdomain: z.string(),
    managedBy: z.string().nullable().describe('The reseller company that manages this one'),
    copiedFrom: z.string().nullable(),
    ...auditFieldsWithout('index', 'deletedAt'),
    deletedBy: auditFields.deletedBy.describe('Always null: companies are not deleted'),
  })
  .meta({ id: 'Company' });

export const createCompanyBodySchema = z.object({ name: z.string().min(1).max(200), subdomain: z.string().min(1).max(63) });
export const updateCompanyBodySchema = z.object({ name: z.string().min(1).max(200).optional(), subdomain: z.string().min(1).max(63).optional() });

/** Spec 2.10: the public company settings. */
export const publicSettingsSchema = companySettingsSchema
  .extend({ uuid: z.string(), name: z.string(), updatedAt: z.number().int() })
  .meta({ id: 'PublicCompanySettings' });

export const toCompany = (row: CompanyRow, actors: Actors): z.infer<typeof companySchema> => ({
  uuid: row.company_uuid,
  name: row.name,
  subdomain: row.subdomain,
  managedBy: row.managed_by,
  copiedFrom: row.copied_from,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...actorFieldsOf(row, actors),
  revision: row.revision,
});

/** Companies answered with their audit fields: each company is its own tenant, so each row is looked up in its own. */
export const companyView = (audit: AuditRenderer, row: CompanyRow) => audit.one(row.company_uuid, row, toCompany);
export const renderCompanies = (audit: AuditRenderer, rows: readonly CompanyRow[]) => Promise.all(rows.map((r) => companyView(audit, r)));

/** Only the 2.10 fields, whatever else the settings row holds. */
export const toPublicSettings = (row: CompanyRow): z.infer<typeof publicSettingsSchema> => ({
  ...companySettingsSchema.parse(row.settings),
  uuid: row.company_uuid,
  name: row.name,
  updatedAt: row.updated_at,
});
