import { z } from 'zod';
import type { CompanyCopyRow } from '../../read-models/sandboxes.queries.js';
import { createCompanyBodySchema } from '../companies/companies.schemas.js';

export const copyBodySchema = createCompanyBodySchema
  .extend({ asOf: z.string().min(1).max(40).optional().describe('The source as it was then: an ISO 8601 time with a zone, or a position of its log (digits). Absent: now.') })
  .meta({ id: 'CompanyCopyCreate' });

export const copyStatusSchema = z
  .object({
    companyUuid: z.string(),
    sourceCompanyUuid: z.string(),
    status: z.enum(['copying', 'finished', 'failed']),
    percentage: z.number().int().min(0).max(100),
    copiedEvents: z.number().int(),
    totalEvents: z.number().int(),
    asOf: z.object({ position: z.number().int().nullable(), time: z.number().int().nullable() }),
    upToPosition: z.number().int(),
    failure: z.string().nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'CompanyCopy' });

export const copiedUuidSchema = z.object({ sourceUuid: z.string(), copyUuid: z.string(), kind: z.string() }).meta({ id: 'CopiedUuid' });

export const toCopyStatus = (row: CompanyCopyRow): z.infer<typeof copyStatusSchema> => ({
  companyUuid: row.tenant,
  sourceCompanyUuid: row.source_company_uuid,
  status: row.status,
  percentage: row.status === 'finished' ? 100 : row.total === 0 ? 0 : Math.min(99, Math.floor((row.copied * 100) / row.total)),
  copiedEvents: row.copied,
  totalEvents: row.total,
  asOf: { position: row.as_of_position, time: row.as_of_time },
  upToPosition: row.up_to_position,
  failure: row.failure,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
