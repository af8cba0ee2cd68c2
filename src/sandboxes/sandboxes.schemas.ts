import { z } from 'zod';
import { invalid } from '../../aggregates/kernel/errors.js';
import { canonicalDateTime } from '../../aggregates/record-filter/values.js';
import type { SandboxRow } from '../../read-models/sandboxes.queries.js';
import { auditFieldsWithout, actorFieldsOf, type Actors } from '../http/audit-fields.js';

export const SANDBOX_HEADER = 'x-platform-sandbox-uuid';

export const asOfField = z
  .string()
  .min(1)
  .max(40)
  .optional()
  .describe('The company as it was then: an ISO 8601 time with a zone (e.g. 2026-11-27T12:00:00Z), or a position of its log (digits, as `POST events/index` shows them). Absent: now.');

export const createSandboxBodySchema = z.object({ name: z.string().min(1).max(200), asOf: asOfField }).strict().meta({ id: 'SandboxCreate' });
export const updateSandboxBodySchema = z
  .object({ reactorsEnabled: z.boolean().describe('Whether webhooks and syncs run on what happens in the sandbox (never on the copied history, never for the copied webhooks)') })
  .strict()
  .meta({ id: 'SandboxUpdate' });

/** `asOf` of a request: digits are a log position; anything else must be an ISO time with a zone. */
export function parseSandboxAsOf(raw: string | undefined): { position: number | null; time: number | null } {
  if (raw === undefined) return { position: null, time: null };
  if (/^\d{1,15}$/.test(raw)) return { position: Number(raw), time: null };
  const iso = canonicalDateTime(raw);
  if (!iso) throw invalid('body.asOf', `asOf "${raw}" is neither a log position nor a time`, 'Send a log position (digits) or an ISO 8601 time with a zone (e.g. 2026-11-27T12:00:00Z)', 'INVALID_DATE');
  return { position: null, time: Date.parse(iso) };
}

export const sandboxSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    companyUuid: z.string().describe('The company the sandbox is a copy of: its identity in every answer'),
    status: z.enum(['cloning', 'ready', 'failed']),
    percentage: z.number().int().min(0).max(100).describe('How much of the clone is done: 100 once ready'),
    copiedEvents: z.number().int(),
    totalEvents: z.number().int(),
    asOf: z.object({ position: z.number().int().nullable(), time: z.number().int().nullable() }).describe('What the clone was asked to copy up to (both null: the time it was asked)'),
    upToPosition: z.number().int().describe('The last position of the company log the clone copies'),
    reactorsEnabled: z.boolean(),
    failure: z.string().nullable(),
    ...auditFieldsWithout('index'),
  })
  .meta({ id: 'Sandbox' });

export const percentageOf = (row: Pick<SandboxRow, 'status' | 'copied' | 'total'>) =>
  row.status === 'ready' ? 100 : row.total === 0 ? 0 : Math.min(99, Math.floor((row.copied * 100) / row.total));

export const toSandbox = (row: SandboxRow, actors: Actors): z.infer<typeof sandboxSchema> => ({
  uuid: row.sandbox_uuid,
  name: row.name,
  companyUuid: row.tenant,
  status: row.status,
  percentage: percentageOf(row),
  copiedEvents: row.copied,
  totalEvents: row.total,
  asOf: { position: row.as_of_position, time: row.as_of_time },
  upToPosition: row.up_to_position,
  reactorsEnabled: row.reactors_enabled,
  failure: row.failure,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
  ...actorFieldsOf(row, actors),
  revision: row.revision,
});
