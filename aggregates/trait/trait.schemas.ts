import { z } from 'zod';
import { invalid } from '../kernel/errors.js';

export const traitNames = ['Flow', 'Table', 'Page', 'User'] as const;
export const traitNameSchema = z.enum(traitNames);
export type TraitName = z.infer<typeof traitNameSchema>;

/** The trait name of a path, case-insensitive; "Webpage" is the spec's other name for Page. */
export function traitNameOf(raw: string): TraitName {
  const key = raw.trim().toLowerCase();
  const found = traitNames.find((t) => t.toLowerCase() === key) ?? (key === 'webpage' ? 'Page' : undefined);
  if (!found) throw invalid('params.traitName', `there is no trait "${raw}"`, `Use one of: ${traitNames.join(', ')}`, 'INVALID_VALUE');
  return found;
}

/** Record fields every object has, usable as table columns and sort keys besides its properties. */
export const builtInFields = ['uuid', 'name', 'label', 'index', 'createdAt', 'updatedAt'] as const;

const propertyName = z.string().min(1).max(200);

/** Flow (kanban): the select property whose value is the stage, and the order of the stages. */
export const flowConfigSchema = z
  .strictObject({
    stageProperty: propertyName.describe('A live select property of the object'),
    stages: z.array(z.string().min(1).max(200)).max(200).optional().describe("Option values of the stage property, in board order (default: the property's option order)"),
  })
  .meta({ id: 'FlowTrait' });

/** Table: the columns shown, their widths, and the default sort. */
export const tableConfigSchema = z
  .strictObject({
    columns: z
      .array(z.strictObject({ property: propertyName.describe('A live property, or one of the built-in fields'), width: z.number().int().min(20).max(4000).optional().describe('Pixels') }))
      .min(1)
      .max(200),
    defaultSort: z.strictObject({ property: propertyName, direction: z.enum(['asc', 'desc']) }).optional(),
  })
  .meta({ id: 'TableTrait' });

/** Page: records of the object get public pages (rendered by webpages). */
export const pageConfigSchema = z
  .strictObject({
    titleProperty: propertyName.optional().describe('A text property used as the page title (default: the record name)'),
    slugProperty: propertyName.optional().describe('A text property used as the page slug (default: from the title)'),
    pathPrefix: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and hyphens').max(100).optional().describe('URL segment before the slug'),
  })
  .meta({ id: 'PageTrait' });

/** User: records of the object are user profiles, one per user of the company. */
export const userConfigSchema = z
  .strictObject({
    emailProperty: propertyName.optional().describe('An email property that mirrors the user e-mail'),
  })
  .meta({ id: 'UserTrait' });

export const traitConfigSchemas = { Flow: flowConfigSchema, Table: tableConfigSchema, Page: pageConfigSchema, User: userConfigSchema } as const;
export type FlowConfig = z.infer<typeof flowConfigSchema>;
export type TableConfig = z.infer<typeof tableConfigSchema>;
export type PageConfig = z.infer<typeof pageConfigSchema>;
export type UserConfig = z.infer<typeof userConfigSchema>;
export type TraitConfig = FlowConfig | TableConfig | PageConfig | UserConfig;
