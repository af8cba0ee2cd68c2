import { z } from 'zod';

/** The value types a module field may hold. */
export const moduleFieldTypes = ['text', 'richtext', 'number', 'boolean', 'image', 'link', 'select', 'list', 'json'] as const;

export const moduleFieldSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,62}$/, 'a letter, then letters, digits or _ (at most 63)'),
  type: z.enum(moduleFieldTypes),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
  options: z.array(z.string().min(1).max(200)).max(200).optional().describe('The allowed values of a select field'),
  label: z.string().max(200).optional(),
});
export type ModuleField = z.infer<typeof moduleFieldSchema>;

/** A module definition (spec 4.8): what a page module of this name holds. */
export const moduleSettingsSchema = z.object({
  name: z.string(),
  label: z.string(),
  description: z.string(),
  fields: z.array(moduleFieldSchema),
});
export type ModuleSettings = z.infer<typeof moduleSettingsSchema>;
