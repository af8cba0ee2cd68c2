import { z } from 'zod';

/** The data type of a property's values. */
export const propertyTypes = ['string', 'number', 'boolean', 'date', 'datetime', 'json'] as const;
export const propertyTypeSchema = z.enum(propertyTypes);
export type PropertyType = z.infer<typeof propertyTypeSchema>;

/** How values are entered, shown and checked. */
export const propertyFormats = [
  'text', 'textarea', 'rich-text', 'email', 'url', 'phone',
  'number', 'currency',
  'select', 'multi-select',
  'date', 'datetime', 'checkbox', 'json',
  'linked', 'file',
] as const;
export const propertyFormatSchema = z.enum(propertyFormats);
export type PropertyFormat = z.infer<typeof propertyFormatSchema>;

/**
 * The types each format takes. The value of a record for a property is of its type, except:
 * multi-select holds an array of option values; linked and file hold one uuid (type string) or
 * an array of uuids (type json). `date` values are `YYYY-MM-DD`, `datetime` values ISO 8601.
 */
export const formatTypes: Readonly<Record<PropertyFormat, readonly PropertyType[]>> = {
  text: ['string'],
  textarea: ['string'],
  'rich-text': ['string'],
  email: ['string'],
  url: ['string'],
  phone: ['string'],
  number: ['number'],
  currency: ['number'],
  select: ['string'],
  'multi-select': ['string'],
  date: ['date', 'datetime'],
  datetime: ['datetime'],
  checkbox: ['boolean'],
  json: ['json'],
  linked: ['string', 'json'],
  file: ['string', 'json'],
};

/** Formats whose values are free text: the ones that take minLength, maxLength and pattern. */
export const textFormats: readonly PropertyFormat[] = ['text', 'textarea', 'rich-text', 'email', 'url', 'phone'];
/** Formats with an option list. */
export const optionFormats: readonly PropertyFormat[] = ['select', 'multi-select'];
/** Formats whose record value is a list. */
export const listFormats: readonly PropertyFormat[] = ['multi-select'];

export const propertyOptionSchema = z
  .object({ value: z.string().min(1).max(200), label: z.string().min(1).max(200) })
  .meta({ id: 'PropertyOption', description: 'One choice of a select or multi-select property: the stored value and its display label.' });
export type PropertyOption = z.infer<typeof propertyOptionSchema>;

/**
 * A property as the caller sends it (create, and the fields of an update). Optional rules may be
 * null (not set), so a client can PUT back what it read.
 */
export const propertyInputSchema = z
  .object({
    name: z.string().max(200).describe('Identifier, unique in the object; immutable'),
    label: z.string().max(200),
    type: propertyTypeSchema.describe('Immutable'),
    format: propertyFormatSchema.describe('Immutable; must suit the type'),
    options: z.array(propertyOptionSchema).max(1000).nullable().optional().describe('select and multi-select only: labels may change and options may be added later'),
    required: z.boolean().optional().describe('Immutable'),
    unique: z.boolean().optional().describe('Immutable'),
    minLength: z.number().int().min(0).max(10_000_000).nullable().optional().describe('Text formats only; immutable'),
    maxLength: z.number().int().min(0).max(10_000_000).nullable().optional().describe('Text formats only; immutable'),
    min: z.number().nullable().optional().describe('Type number only; immutable'),
    max: z.number().nullable().optional().describe('Type number only; immutable'),
    pattern: z.string().max(1000).nullable().optional().describe('A JavaScript regular expression the whole value must match; text formats only; immutable'),
    description: z.string().max(2000).nullable().optional(),
    icon: z.string().max(200).nullable().optional(),
    group: z.string().max(200).nullable().optional(),
    relationUuid: z.string().uuid().nullable().optional().describe('linked only: the relation that backs the property; immutable'),
  })
  .meta({ id: 'PropertyBody' });
export type PropertyInput = z.infer<typeof propertyInputSchema>;

/** A property definition as stored and as records are validated against it. */
export const propertyDefinitionSchema = z.object({
  name: z.string(),
  label: z.string(),
  type: propertyTypeSchema,
  format: propertyFormatSchema,
  options: z.array(propertyOptionSchema).nullable(),
  required: z.boolean(),
  unique: z.boolean(),
  minLength: z.number().int().nullable(),
  maxLength: z.number().int().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  pattern: z.string().nullable(),
  description: z.string(),
  icon: z.string(),
  group: z.string().nullable(),
  relationUuid: z.string().nullable(),
});
export type PropertyDefinition = z.infer<typeof propertyDefinitionSchema>;

/** The fields that never change once a property exists. */
export const immutablePropertyFields = ['name', 'type', 'format', 'required', 'unique', 'minLength', 'maxLength', 'min', 'max', 'pattern', 'relationUuid'] as const;
