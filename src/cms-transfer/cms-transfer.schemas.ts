import { z } from 'zod';
import { transferStates } from '../../aggregates/cms-transfer/cms-transfer.decider.js';
import type { CompanyRow } from '../../read-models/companies.queries.js';
import type { CmsTransferHistoryRow, CmsTransferRow } from '../../read-models/cms-transfers.queries.js';
import { optionalBody } from '../http/optional-body.js';

const hostname = z
  .string()
  .max(253)
  .transform((h) => h.toLowerCase())
  .pipe(z.string().regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/, 'a DNS hostname such as www.example.com'))
  .describe('A DNS hostname, e.g. www.example.com (no scheme, no port)');
const schemaName = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lowercase identifier of 1 to 63 letters, digits and underscores').describe('The v2 runtime schema the site content lives in');
const repository = z.string().max(500).regex(/^https:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?\/[^\s]*$/, 'an https URL').describe('The https URL of the web project repository');

export const attachBodySchema = z
  .object({
    projectId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, '1 to 100 letters, digits, dots, hyphens, underscores').describe('The id of the web project made in the v2 runtime'),
    name: z.string().min(1).max(200).optional().describe('Default: the projectId'),
    repository,
    schema: schemaName,
    previewHostname: hostname.nullable().optional().describe('Where the v2 project answers before the cutover'),
  })
  .strict()
  .meta({ id: 'CmsTransferAttach' });

export const cutoverBodySchema = optionalBody(
  z
    .object({
      hostname: hostname.optional().describe("The live hostname to move; default: the company's customDomain"),
      schema: schemaName.optional().describe("Default: the attached project's"),
      repository: repository.optional().describe("Default: the attached project's"),
    })
    .strict()
    .meta({ id: 'CmsTransferCutover' }),
  () => ({}),
);
export const rollbackBodySchema = optionalBody(z.object({ reason: z.string().max(500).optional() }).strict().meta({ id: 'CmsTransferRollback' }), () => ({}));

const projectSchema = z.object({ projectId: z.string(), name: z.string(), repository: z.string(), schema: z.string(), previewHostname: z.string().nullable() });

export const cmsTransferSchema = z
  .object({
    companyUuid: z.string(),
    state: z.enum(transferStates),
    transferUuid: z.string().nullable().describe('The transfer in course: each attach starts one'),
    project: projectSchema.nullable().describe('The attached v2 web project'),
    live: z
      .object({ runtime: z.enum(['v1', 'v2']), hostname: z.string().nullable(), schema: z.string().nullable(), repository: z.string().nullable() })
      .describe('Who serves the live site now; on v2 with the hostname, schema and repository recorded at the cutover'),
    v1: z.object({ hostname: z.string(), subdomain: z.string() }).nullable().describe('The stored v1 project a rollback returns the hostname to'),
    revision: z.number().int().describe('-1 before the first transition'),
    updatedAt: z.number().int().nullable(),
    updatedByUuid: z.string().nullable(),
  })
  .meta({ id: 'CmsTransfer' });
export type CmsTransfer = z.infer<typeof cmsTransferSchema>;

export const cmsTransferHistoryItemSchema = z
  .object({
    revision: z.number().int(),
    transferUuid: z.string(),
    type: z.string().describe('The event: CmsTransferAttached, CmsTransferCutOver, CmsTransferRolledBack'),
    fromState: z.enum(transferStates),
    toState: z.enum(transferStates),
    data: z.record(z.string(), z.unknown()),
    at: z.number().int(),
    byUuid: z.string().nullable(),
    requestId: z.string(),
  })
  .meta({ id: 'CmsTransferHistoryItem' });

export function toCmsTransfer(company: CompanyRow, row: CmsTransferRow | null): CmsTransfer {
  const live = row?.state === 'cut_over' && row.live ? { runtime: 'v2' as const, ...row.live } : { runtime: 'v1' as const, hostname: row?.v1?.hostname ?? null, schema: null, repository: null };
  return {
    companyUuid: company.company_uuid,
    state: row?.state ?? 'not_started',
    transferUuid: row?.transfer_uuid ?? null,
    project: row?.project ?? null,
    live,
    v1: row?.v1 ?? null,
    revision: row?.revision ?? -1,
    updatedAt: row?.updated_at ?? null,
    updatedByUuid: row?.updated_by ?? null,
  };
}

export const toHistoryItem = (r: CmsTransferHistoryRow) => ({
  revision: r.revision,
  transferUuid: r.transfer_uuid,
  type: r.type,
  fromState: r.from_state,
  toState: r.to_state,
  data: r.data,
  at: r.at,
  byUuid: r.by,
  requestId: r.request_id,
});
