import { z } from 'zod';
import { ENV_KEY } from '../../aggregates/environment/environment.decider.js';
import { moduleFieldSchema } from '../../aggregates/module/module.schemas.js';
import { pageFieldMax, SEO_KEY_MAX, SEO_VALUE_MAX } from '../../aggregates/page/page.document.js';
import { MAX_MODULES, SLUG } from '../../aggregates/page/page.patch.js';
import { menuItemSchema } from '../../aggregates/web-menu/web-menu.schemas.js';
import { localeSchema } from '../webpages/pages.schemas.js';

/** The format this server writes and reads. A new shape is a new number, with a reader of the old one. */
export const CMS_EXPORT_FORMAT_VERSION = 1;

/** How much one document may hold: an import is checked whole in memory before its first write. */
export const exportLimits = { environments: 50, modules: 500, pages: 2000, modulesPerPage: MAX_MODULES, menus: 500, translations: 4000 } as const;

const NAME = z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'lowercase letters, digits, _ and -, starting with a letter');
const envKey = z.string().max(63).regex(ENV_KEY, 'an environment key');
const text = (max: number) => z.string().max(max);

const environment = z.strictObject({
  key: envKey,
  label: z.string().min(1).max(200),
  routing: z.string().min(1).max(100),
  slugPrefix: z.string().max(100).regex(/^([a-z0-9]+(-[a-z0-9]+)*)?$/),
  hostLabel: text(253),
  htmlLang: localeSchema,
  requiresAuth: z.boolean(),
  default: z.boolean(),
});

const moduleDefinition = z.strictObject({ name: NAME, label: z.string().min(1).max(200), description: text(2000), fields: z.array(moduleFieldSchema).max(100) });

const pageModule = z.strictObject({ id: z.string().min(1).max(1000), module: z.string().min(1).max(300), fields: z.record(z.string().max(200), z.unknown()), hidden: z.boolean() });

const page = z.strictObject({
  uuid: z.uuid().describe('The page in the exporting company: what menus and translations of this document refer to'),
  recordUuid: z.uuid().describe('The record the page is bound to in the exporting company'),
  objectName: z.string().max(200),
  environment: envKey,
  locale: localeSchema,
  document: z.strictObject({
    title: text(pageFieldMax.title),
    slug: text(pageFieldMax.slug).regex(SLUG, 'a slug'),
    excerpt: text(pageFieldMax.excerpt),
    css: text(pageFieldMax.css),
    headJs: text(pageFieldMax.headJs),
    bodyJs: text(pageFieldMax.bodyJs),
    seo: z.record(z.string().max(SEO_KEY_MAX), z.unknown()).refine((seo) => Object.keys(seo).length <= 200 && Object.values(seo).every((v) => v === null || (typeof v === 'string' && v.length <= SEO_VALUE_MAX)), 'at most 200 keys of string (or null) values'),
    modules: z.array(pageModule).max(exportLimits.modulesPerPage),
  }),
  protection: z.enum(['none', 'password', 'members']).describe('A password is never exported: a password page is imported members-only'),
  publication: z.strictObject({
    published: z.boolean().describe('Live when exported'),
    publishAt: z.number().int().nonnegative().nullable().describe('Epoch seconds of a pending publish'),
    unpublishAt: z.number().int().nonnegative().nullable().describe('Epoch seconds of a pending unpublish'),
  }),
});

const menu = z.strictObject({ uuid: z.uuid(), name: NAME, label: z.string().min(1).max(200), environment: envKey, items: z.array(menuItemSchema).max(200) });

/** One company's site as one JSON document (docs/cms.md, "Export and import"). */
export const cmsExportSchema = z
  .strictObject({
    formatVersion: z.literal(CMS_EXPORT_FORMAT_VERSION).describe('The format of this document; this server reads 1'),
    exportedAt: z.number().int().describe('Epoch ms'),
    source: z.strictObject({ companyUuid: z.uuid(), subdomain: z.string().max(63) }),
    environments: z.array(environment).max(exportLimits.environments),
    modules: z.array(moduleDefinition).max(exportLimits.modules),
    pages: z.array(page).max(exportLimits.pages),
    menus: z.array(menu).max(exportLimits.menus),
    translations: z.array(z.tuple([z.uuid(), z.uuid()])).max(exportLimits.translations).describe('Pairs of page uuids of this document linked as translations'),
  })
  .meta({ id: 'CmsExport' });
export type CmsExport = z.infer<typeof cmsExportSchema>;
export type ExportPage = CmsExport['pages'][number];

export const importBodySchema = z
  .strictObject({
    document: z.unknown().describe('A CmsExport document (GET /api/v2/cms/export); its formatVersion is checked first'),
    records: z
      .record(z.uuid(), z.uuid())
      .refine((m) => Object.keys(m).length <= exportLimits.pages, `at most ${exportLimits.pages} entries`)
      .optional()
      .describe("The exporting company's record uuid -> this company's record each page is bound to; a record not named keeps its uuid (a copied company)"),
  })
  .meta({ id: 'CmsImport' });

export const importQuerySchema = z.strictObject({
  dryRun: z.enum(['true', 'false']).default('true').transform((v) => v === 'true').describe('Default true: only the list of what would change; send dryRun=false to write'),
});

export const changeKinds = ['environment', 'module', 'page', 'publication', 'translation', 'menu'] as const;
const change = z
  .object({
    kind: z.enum(changeKinds),
    action: z.enum(['create', 'keep', 'publish', 'schedule', 'link']),
    key: z.string().describe('What it is: an environment key, a module name, env/locale/slug, env/name'),
    sourceUuid: z.string().nullable(),
    targetUuid: z.string().nullable().describe('The uuid made in this company (null in a dry run, or for what is kept)'),
    note: z.string().nullable(),
  })
  .meta({ id: 'CmsImportChange' });
export type ImportChange = z.infer<typeof change>;

export const importResultSchema = z
  .object({ dryRun: z.boolean(), changes: z.array(change), counts: z.record(z.string(), z.number().int()) })
  .meta({ id: 'CmsImportResult' });
