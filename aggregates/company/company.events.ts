import { z } from 'zod';
import { companySettingsSchema } from './company-settings.js';

export const companyCreated = z.object({
  type: z.literal('CompanyCreated'),
  version: z.literal(1),
  data: z.object({
    companyUuid: z.string().uuid(),
    name: z.string(),
    subdomain: z.string(),
    createdBy: z.string().uuid(),
    /** The reseller company that manages this one, if any. */
    managedBy: z.string().uuid().nullable(),
    /** The managed company this one was copied from, if any. */
    copiedFrom: z.string().uuid().nullable(),
    settings: companySettingsSchema,
  }),
});
export const companyUpdated = z.object({
  type: z.literal('CompanyUpdated'),
  version: z.literal(1),
  data: z.object({ name: z.string().optional(), subdomain: z.string().optional() }),
});
export const companySettingsUpdated = z.object({
  type: z.literal('CompanySettingsUpdated'),
  version: z.literal(1),
  data: z.object({ settings: companySettingsSchema }),
});

export const companyEventSchema = z.discriminatedUnion('type', [companyCreated, companyUpdated, companySettingsUpdated]);
export type CompanyEvent = z.infer<typeof companyEventSchema>;
export const companyEventTypes = companyEventSchema.options.map((o) => o.shape.type.value);

/** A company's stream lives in its own tenant. */
export const COMPANY_STREAM_PREFIX = 'company-';
export const companyStream = (companyUuid: string) => `${COMPANY_STREAM_PREFIX}${companyUuid}`;
/** The uuid a company stream is named by (the inverse of `companyStream`). */
export const companyUuidOfStream = (streamId: string) => streamId.slice(COMPANY_STREAM_PREFIX.length);
