import { z } from 'zod';
import { formStyles, formSettingsSchema, scoringRuleSchema } from '../../aggregates/form/form.events.js';
import type { FormRow, FormSubmissionRow } from '../../read-models/forms.queries.js';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';

const text = (max: number) => z.string().max(max);
const place = {
  id: z.string().min(1).max(100).regex(/^[\w-]+$/).optional().describe('Stable id of the item; inner-form entries are sent under it. Default item-<index>'),
  row: z.number().int().describe('Row of the grid, from 0'),
  column: z.number().int().describe('First column, 0 to 11'),
  width: z.number().int().describe('Columns spanned, 1 to 12 (column + width <= 12)'),
  step: z.number().int().optional().describe('Wizard step, from 0 (default 0)'),
};
const itemSchema = z.discriminatedUnion('kind', [
  z.object({ ...place, kind: z.literal('property'), property: text(200), label: text(500).nullable().optional(), placeholder: text(500).nullable().optional(), required: z.boolean().optional() }).strict(),
  z.object({ ...place, kind: z.enum(['heading', 'text']), text: text(5000) }).strict(),
  z.object({
    ...place, kind: z.literal('innerForm'), label: text(500).nullable().optional(), relationUuid: z.uuid(),
    fields: z.array(z.object({ property: text(200), label: text(500).nullable().optional(), required: z.boolean().optional() }).strict()).max(50),
    minEntries: z.number().int().optional(), maxEntries: z.number().int().optional(),
  }).strict(),
], {
  // Not zod's "Invalid discriminator value": the first form a new user posts often has no `kind` (docs/forms.md).
  error: (issue) => (issue.code === 'invalid_union' ? 'Each item needs kind: property (a field), heading or text (static text), or innerForm (related records)' : undefined),
});

const fields = {
  name: z.string().min(1).max(100).optional().describe('Lowercase letters, digits, _ and -; required on create'),
  label: z.string().min(1).max(200).optional(),
  objectUuid: z.uuid().optional().describe("The object the form's records are of; required on create"),
  style: z.enum(formStyles).optional(),
  steps: z.array(z.object({ title: text(200) }).strict()).max(20).optional(),
  items: z.array(itemSchema).max(200).optional(),
  scoring: z.object({ property: text(200).describe('Number property the total is stored in'), rules: z.array(scoringRuleSchema).max(100) }).strict().nullable().optional(),
  successMessage: text(5000).nullable().optional(),
  redirectUrl: text(2000).nullable().optional(),
  published: z.boolean().optional().describe('Only published forms are public. Default false'),
};
export const formBodySchema = z.object(fields).strict().meta({ id: 'FormBody' });

export const formSchema = formSettingsSchema.extend({ uuid: z.string(), ...auditFields }).meta({ id: 'Form' });

export const toForm = (row: FormRow, actors: Actors): z.infer<typeof formSchema> => ({
  uuid: row.form_uuid,
  ...row.settings,
  ...auditFieldsOf(row, actors),
});

export const submissionSchema = z
  .object({
    uuid: z.string(),
    formUuid: z.string(),
    formRevision: z.number().int(),
    recordUuid: z.string(),
    recordUuids: z.array(z.string()),
    related: z.array(z.object({ itemId: z.string(), recordUuid: z.string(), objectName: z.string(), relationUuid: z.string() })),
    score: z.number().nullable(),
    visitor: z.object({ address: z.string(), userAgent: z.string() }),
    createdAt: z.number(),
  })
  .meta({ id: 'FormSubmission' });

export const toSubmission = (row: FormSubmissionRow): z.infer<typeof submissionSchema> => ({
  uuid: row.submission_uuid,
  formUuid: row.form_uuid,
  formRevision: Number(row.form_revision),
  recordUuid: row.record_uuid,
  recordUuids: row.record_uuids,
  related: row.related,
  score: row.score === null ? null : Number(row.score),
  visitor: row.visitor,
  createdAt: Number(row.created_at),
});
