import { z } from 'zod';
import type { FormSettings } from '../../aggregates/form/form.events.js';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';

/** The body field a person never fills (hidden by the form's renderer); a bot that fills it creates nothing. */
export const HONEYPOT_FIELD = 'website_url';

const fieldOf = z.object({
  property: z.string(),
  label: z.string(),
  type: z.string(),
  format: z.string(),
  required: z.boolean(),
  options: z.array(z.object({ value: z.string(), label: z.string() })),
});

/** What a visitor needs to render a form: no object or relation uuids, no scoring, no audit fields. */
export const publicFormSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    label: z.string(),
    style: z.string(),
    steps: z.array(z.object({ title: z.string() })),
    items: z.array(
      z.object({
        id: z.string(), kind: z.string(), row: z.number(), column: z.number(), width: z.number(), step: z.number(),
        text: z.string().optional(), placeholder: z.string().nullable().optional(), field: fieldOf.optional(),
        label: z.string().nullable().optional(), fields: z.array(fieldOf).optional(), minEntries: z.number().optional(), maxEntries: z.number().optional(),
      }),
    ),
    successMessage: z.string().nullable(),
    redirectUrl: z.string().nullable(),
    honeypotField: z.string(),
  })
  .meta({ id: 'PublicForm' });
export type PublicForm = z.infer<typeof publicFormSchema>;

type Definitions = readonly PropertyDefinition[];

function fieldFor(defs: Definitions, property: string, label: string | null, required: boolean) {
  const d = defs.find((x) => x.name === property);
  return {
    property,
    label: label ?? d?.label ?? property,
    type: d?.type ?? 'string',
    format: d?.format ?? 'text',
    required: required || (d?.required ?? false),
    options: (d?.options ?? []).map((o) => ({ value: String(o.value), label: String(o.label ?? o.value) })),
  };
}

export function toPublicForm(formUuid: string, s: FormSettings, defs: Definitions, innerDefs: Readonly<Record<string, Definitions>>): PublicForm {
  return {
    uuid: formUuid, name: s.name, label: s.label, style: s.style, steps: s.steps,
    items: s.items.map((i) => {
      const placed = { id: i.id, kind: i.kind, row: i.row, column: i.column, width: i.width, step: i.step };
      if (i.kind === 'property') return { ...placed, placeholder: i.placeholder, field: fieldFor(defs, i.property, i.label, i.required) };
      if (i.kind === 'innerForm') return { ...placed, label: i.label, fields: i.fields.map((f) => fieldFor(innerDefs[i.id] ?? [], f.property, f.label, f.required)), minEntries: i.minEntries, maxEntries: i.maxEntries };
      return { ...placed, text: i.text };
    }),
    successMessage: s.successMessage, redirectUrl: s.redirectUrl, honeypotField: HONEYPOT_FIELD,
  };
}

const answerValue = z.unknown();
export const submitBodySchema = z
  .object({
    answers: z.record(z.string().max(200), answerValue).default({}),
    inner: z.record(z.string().max(100), z.array(z.record(z.string().max(200), answerValue)).max(100)).default({}),
    clientSubmissionId: z.string().min(1).max(200).optional().describe('Sent again on a retry or a double click: one submission, one record'),
    [HONEYPOT_FIELD]: z.string().max(2000).optional().describe('Leave empty (hidden from people)'),
  })
  .strict()
  .meta({ id: 'FormSubmit' });

export const submitAnswerSchema = z.object({ submissionUuid: z.string().nullable(), step: z.number().nullable(), valid: z.boolean(), successMessage: z.string().nullable(), redirectUrl: z.string().nullable() });
