import { z } from 'zod';

const uuid = z.string().uuid();

/** Where an item sits on the form's 12-column grid, and the wizard step it belongs to. */
const place = {
  /** Stable id of the item within the form (answers of inner forms are keyed by it). */
  id: z.string(),
  row: z.number().int(),
  column: z.number().int(),
  width: z.number().int(),
  step: z.number().int(),
};

/** A property of the form's object, answered by the visitor. */
export const propertyItemSchema = z.object({
  ...place,
  kind: z.literal('property'),
  property: z.string(),
  label: z.string().nullable(),
  placeholder: z.string().nullable(),
  /** Required on this form even when the property is not. */
  required: z.boolean(),
});

/** Static content: a heading or a paragraph. */
export const textItemSchema = z.object({ ...place, kind: z.enum(['heading', 'text']), text: z.string() });

/** A field of an inner form: a property of the related object. */
export const innerFieldSchema = z.object({ property: z.string(), label: z.string().nullable(), required: z.boolean() });

/**
 * An inner form: records of the object at the other end of `relationUuid`, each created with
 * the submission and connected to its record (0 to `maxEntries` of them).
 */
export const innerFormItemSchema = z.object({
  ...place,
  kind: z.literal('innerForm'),
  label: z.string().nullable(),
  relationUuid: uuid,
  objectUuid: uuid,
  objectName: z.string(),
  /** Whether the form's record is the relation's origin (from) or its target (to). */
  side: z.enum(['origin', 'target']),
  fields: z.array(innerFieldSchema),
  minEntries: z.number().int(),
  maxEntries: z.number().int(),
});

export const formItemSchema = z.discriminatedUnion('kind', [propertyItemSchema, textItemSchema, innerFormItemSchema]);
export type FormItem = z.infer<typeof formItemSchema>;
export type PropertyItem = z.infer<typeof propertyItemSchema>;
export type InnerFormItem = z.infer<typeof innerFormItemSchema>;

/** A lead-scoring rule: `points` when the answer to `property` matches. */
export const scoringRuleSchema = z.discriminatedUnion('operator', [
  z.object({ property: z.string(), operator: z.literal('equals'), value: z.union([z.string(), z.number(), z.boolean()]), points: z.number() }),
  z.object({ property: z.string(), operator: z.literal('contains'), value: z.string(), points: z.number() }),
  z.object({ property: z.string(), operator: z.literal('oneOf'), values: z.array(z.union([z.string(), z.number()])), points: z.number() }),
  z.object({ property: z.string(), operator: z.literal('between'), min: z.number().nullable(), max: z.number().nullable(), points: z.number() }),
]);
export type ScoringRule = z.infer<typeof scoringRuleSchema>;

export const formStyles = ['standard', 'underline', 'plain'] as const;

export const formSettingsSchema = z.object({
  name: z.string(),
  label: z.string(),
  objectUuid: uuid,
  objectName: z.string(),
  style: z.enum(formStyles),
  steps: z.array(z.object({ title: z.string() })),
  items: z.array(formItemSchema),
  /** Lead scoring: the rules, and the number property of the record the total is stored in. */
  scoring: z.object({ property: z.string(), rules: z.array(scoringRuleSchema) }).nullable(),
  successMessage: z.string().nullable(),
  redirectUrl: z.string().nullable(),
  published: z.boolean(),
});
export type FormSettings = z.infer<typeof formSettingsSchema>;

export const formCreated = z.object({ type: z.literal('FormCreated'), version: z.literal(1), data: formSettingsSchema.extend({ formUuid: uuid }) });
/** The whole settings after the change: a submission's form revision folds to the form as it was. */
export const formUpdated = z.object({ type: z.literal('FormUpdated'), version: z.literal(1), data: formSettingsSchema.extend({ formUuid: uuid }) });
export const formDeleted = z.object({ type: z.literal('FormDeleted'), version: z.literal(1), data: z.object({ formUuid: uuid }) });
export const formRestored = z.object({ type: z.literal('FormRestored'), version: z.literal(1), data: z.object({ formUuid: uuid }) });

export const formEventSchema = z.discriminatedUnion('type', [formCreated, formUpdated, formDeleted, formRestored]);
export type FormEvent = z.infer<typeof formEventSchema>;
export const formEventTypes = formEventSchema.options.map((o) => o.shape.type.value);

export const FORM_STREAM_PREFIX = 'form-';
export const formStream = (formUuid: string) => `${FORM_STREAM_PREFIX}${formUuid}`;
/** The uuid a form stream is named by (the inverse of `formStream`). */
export const formUuidOfStream = (streamId: string) => streamId.slice(FORM_STREAM_PREFIX.length);

/** A record the submission created through an inner form, and how it is connected. */
export const createdRelatedSchema = z.object({ itemId: z.string(), recordUuid: uuid, objectName: z.string(), relationUuid: uuid });

/**
 * A public submission (spec 6.5): the form's revision when it was submitted, the records it
 * created, the score and the visitor (address truncated to its network, user agent). The answers
 * are in the records' own RecordCreated events, not repeated here.
 */
export const formSubmissionEvent = z.object({
  type: z.literal('FormSubmissionEvent'),
  version: z.literal(1),
  data: z.object({
    submissionUuid: uuid,
    formUuid: uuid,
    formRevision: z.number().int(),
    objectName: z.string(),
    recordUuid: uuid,
    related: z.array(createdRelatedSchema),
    recordUuids: z.array(uuid),
    score: z.number().nullable(),
    visitor: z.object({ address: z.string(), userAgent: z.string() }),
  }),
});
export const formSubmissionEventSchema = z.discriminatedUnion('type', [formSubmissionEvent]);
export type FormSubmissionEvent = z.infer<typeof formSubmissionEventSchema>;
export const formSubmissionEventTypes = formSubmissionEventSchema.options.map((o) => o.shape.type.value);

export const FORM_SUBMISSION_STREAM_PREFIX = 'form-submission-';
export const formSubmissionStream = (submissionUuid: string) => `${FORM_SUBMISSION_STREAM_PREFIX}${submissionUuid}`;
export const formSubmissionUuidOfStream = (streamId: string) => streamId.slice(FORM_SUBMISSION_STREAM_PREFIX.length);
