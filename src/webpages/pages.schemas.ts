import { z } from 'zod';
import { stateAt, liveAt } from '../../aggregates/page/page.publication.js';
import { pageDocumentSchema, pageFieldMax, SEO_KEY_MAX, SEO_VALUE_MAX, type PageDocument, type PageFieldName } from '../../aggregates/page/page.document.js';
import type { StoredProtection } from '../../aggregates/page/page.events.js';
import type { Publication } from '../../aggregates/page/page.publication.js';

const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;
export const localeSchema = z.string().regex(LOCALE, 'a language tag such as en, de or pt-BR').max(35);

/**
 * The page's document fields as a client sends them: the domain's fields (`pageDocumentSchema`)
 * with the domain's limits (`pageFieldMax`); declared here once for create, update and templates.
 */
const field = (name: PageFieldName) => pageDocumentSchema.shape[name].max(pageFieldMax[name]);
const documentInput = {
  title: field('title').min(1),
  slug: field('slug').min(1),
  excerpt: field('excerpt'),
  seo: z.record(z.string().max(SEO_KEY_MAX), z.string().max(SEO_VALUE_MAX).nullable()),
  css: field('css'),
  headJs: field('headJs'),
  bodyJs: field('bodyJs'),
};
const optionalDocumentInput = Object.fromEntries(Object.entries(documentInput).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof documentInput]: z.ZodOptional<(typeof documentInput)[K]> };

/** Protection as a client sends it: the password only ever travels in; it is kept as a hash. */
export const protectionInputSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({ type: z.literal('password'), password: z.string().min(4).max(200) }),
  z.strictObject({ type: z.literal('members') }),
]);
export type ProtectionInput = z.infer<typeof protectionInputSchema>;

export const createPageBodySchema = z
  .strictObject({
    recordUuid: z.uuid().describe('A record of an object with the Page trait'),
    environment: z.string().min(1).max(63).optional().describe('Environment key (default: the company default environment)'),
    locale: localeSchema.optional().describe("Default: the environment's htmlLang"),
    ...optionalDocumentInput,
    title: optionalDocumentInput.title.describe("Default: the record's title property (Page trait), else its name"),
    slug: optionalDocumentInput.slug.describe('Default: made from the title; unique per environment and locale'),
    protection: protectionInputSchema.optional(),
  })
  .meta({ id: 'WebpageCreate' });
export type CreatePageBody = z.infer<typeof createPageBodySchema>;

export const updatePageBodySchema = z
  .strictObject({
    ...optionalDocumentInput,
    protection: protectionInputSchema.optional(),
    expectedRevision: z.number().int().min(0).optional().describe('The document revision this change is made on: 409 when the page moved on'),
  })
  .meta({ id: 'WebpageUpdate' });
export type UpdatePageBody = z.infer<typeof updatePageBodySchema>;

/** A template webpage's change (POST /webpages/template/...): page fields, SEO, modules that replace its modules. */
const templateModuleInput = z.object({ id: z.string().max(100).optional(), module: z.string().min(1).max(200), fields: z.record(z.string(), z.unknown()).optional(), hidden: z.boolean().optional() });
const { slug: _slug, ...templateInput } = optionalDocumentInput;
export const templateBodySchema = z
  .strictObject({
    locale: localeSchema.optional(),
    ...templateInput,
    modules: z.array(templateModuleInput).max(500).optional().describe('Replaces the modules'),
  })
  .meta({ id: 'WebpageTemplate' });
export type TemplateBody = z.infer<typeof templateBodySchema>;

const moduleInput = z.object({ id: z.string().optional(), module: z.string().optional(), fields: z.record(z.string(), z.unknown()).optional(), hidden: z.boolean().optional() });

/** CmsPagePatch (spec 2.8). Loose on purpose: which fields count depends on `op`, and the decider names what is wrong. */
export const pagePatchSchema = z
  .object({
    op: z.string().max(40).describe('addModule, removeModule, moveModule, setField, setFields, hideModule, showModule, replaceModules, setSeo, setPage (docs/cms.md)'),
    moduleId: z.string().max(100).optional(),
    ref: z.string().max(100).optional().describe('addModule: names the new module; later patches of the batch address it by ref'),
    field: z.string().max(200).optional(),
    value: z.unknown().optional(),
    fields: z.record(z.string(), z.unknown()).optional(),
    module: moduleInput.optional(),
    index: z.number().optional(),
    toIndex: z.number().optional(),
    hidden: z.boolean().optional(),
    modules: z.array(moduleInput).max(500).optional(),
    seo: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'CmsPagePatch' });

export const patchBodySchema = z
  .strictObject({
    locale: localeSchema,
    patches: z.array(pagePatchSchema).min(1).max(200),
    expectedRevision: z.number().int().min(0).describe('document.revision the batch was made on: 409 when the page moved on'),
  })
  .meta({ id: 'CmsPagePatchRequest' });

export const scheduleQuerySchema = (name: 'publishAt' | 'unpublishAt') =>
  z.object({ [name]: z.string().max(20).optional().describe('Epoch seconds, in the future; leave out for now') }).partial();


export const cmsPageSchema = z
  .object({
    uuid: z.string(),
    title: z.string(),
    slug: z.string(),
    locale: z.string(),
    environment: z.string(),
    state: z.enum(['draft', 'scheduled', 'published', 'unpublished']),
    published: z.boolean(),
    document: pageDocumentSchema,
    record: z.object({ uuid: z.string(), object: z.string(), properties: z.record(z.string(), z.unknown()), parsedProperties: z.record(z.string(), z.unknown()) }),
    protection: z.object({ type: z.enum(['none', 'password', 'members']) }),
    locales: z.array(z.string()),
    publishAt: z.number().int().nullable(),
    unpublishAt: z.number().int().nullable(),
    template: z.boolean(),
  })
  .meta({ id: 'CmsPageDTO' });
export type CmsPage = z.infer<typeof cmsPageSchema>;

/** What a DTO is made of, whether it comes from a read-model row or a command's state. */
export interface PageView {
  pageUuid: string;
  recordUuid: string;
  objectName: string;
  environment: string;
  locale: string;
  template: boolean;
  document: PageDocument;
  protection: StoredProtection;
  publication: Publication;
}

/** The DTO at `nowSeconds`; `record` null leaves the record's values out (public routes). */
export function toCmsPage(v: PageView, nowSeconds: number, record: Record<string, unknown> | null, locales: string[]): CmsPage {
  const properties = record ?? {};
  return {
    uuid: v.pageUuid,
    title: v.document.title,
    slug: v.document.slug,
    locale: v.locale,
    environment: v.environment,
    state: stateAt(v.publication, nowSeconds),
    published: liveAt(v.publication, nowSeconds),
    document: v.document,
    record: { uuid: v.recordUuid, object: v.objectName, properties, parsedProperties: properties },
    protection: { type: v.protection.type },
    locales,
    publishAt: v.publication.publishAt,
    unpublishAt: v.publication.unpublishAt,
    template: v.template,
  };
}

export const historyEntrySchema = z
  .object({
    index: z.number().int().describe('The document revision: POST .../history/{index}/restore brings it back'),
    kind: z.enum(['created', 'patched', 'restored']),
    restoredFrom: z.number().int().nullable(),
    ops: z.array(z.record(z.string(), z.unknown())),
    at: z.number().int(),
    by: z.object({ uuid: z.string() }).nullable(),
    requestId: z.string(),
  })
  .meta({ id: 'CmsPageHistoryEntry' });
