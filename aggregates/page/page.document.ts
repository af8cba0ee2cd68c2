import { z } from 'zod';

/** One module placed on a page: `module` names its definition (4.8), `fields` are its values. */
export const pageModuleSchema = z.object({
  id: z.string(),
  module: z.string(),
  fields: z.record(z.string(), z.unknown()),
  hidden: z.boolean(),
});
export type PageModule = z.infer<typeof pageModuleSchema>;

/** SEO metadata of a page (spec 1.8): title, excerpt, slug, image, and any other string keys an editor keeps. */
export const seoSchema = z.record(z.string(), z.unknown());

/** The page fields a `setPage` op may set (spec 2.7 document strings). */
export const pageFieldNames = ['title', 'slug', 'excerpt', 'css', 'headJs', 'bodyJs'] as const;
export type PageFieldName = (typeof pageFieldNames)[number];

/** The longest each page field may be, in characters: the patch ops and the API check the same. */
export const pageFieldMax: Readonly<Record<PageFieldName, number>> = { title: 300, slug: 200, excerpt: 2000, css: 100_000, headJs: 100_000, bodyJs: 100_000 };
/** The longest key and value of a page's SEO map. */
export const SEO_KEY_MAX = 100;
export const SEO_VALUE_MAX = 2000;

/** The editable document of a page (CmsPageDTO.document). `revision` counts edit batches from 0. */
export const pageDocumentSchema = z.object({
  version: z.literal(1),
  revision: z.number().int(),
  modules: z.array(pageModuleSchema),
  seo: seoSchema,
  title: z.string(),
  slug: z.string(),
  excerpt: z.string(),
  css: z.string(),
  headJs: z.string(),
  bodyJs: z.string(),
});
export type PageDocument = z.infer<typeof pageDocumentSchema>;

export const emptyDocument = (title: string, slug: string): PageDocument => ({
  version: 1,
  revision: 0,
  modules: [],
  seo: {},
  title,
  slug,
  excerpt: '',
  css: '',
  headJs: '',
  bodyJs: '',
});

/**
 * A patch op as stored in `PagePatched`: checked, with every `ref` resolved to the module id it
 * names and every added module carrying its id, so replaying it needs nothing but the document.
 */
export const resolvedOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('addModule'), module: pageModuleSchema, index: z.number().int() }),
  z.object({ op: z.literal('removeModule'), moduleId: z.string() }),
  z.object({ op: z.literal('moveModule'), moduleId: z.string(), toIndex: z.number().int() }),
  z.object({ op: z.literal('setField'), moduleId: z.string(), field: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('setFields'), moduleId: z.string(), fields: z.record(z.string(), z.unknown()) }),
  z.object({ op: z.literal('setHidden'), moduleId: z.string(), hidden: z.boolean() }),
  z.object({ op: z.literal('replaceModules'), modules: z.array(pageModuleSchema) }),
  z.object({ op: z.literal('setSeo'), seo: seoSchema }),
  z.object({ op: z.literal('setPage'), fields: z.partialRecord(z.enum(pageFieldNames), z.string()) }),
]);
export type ResolvedOp = z.infer<typeof resolvedOpSchema>;

const at = (doc: PageDocument, moduleId: string) => doc.modules.findIndex((m) => m.id === moduleId);

/**
 * Applies one checked op. Pure and total on ops the decider accepted (an id it cannot find leaves
 * the document as it is), so a stored event always replays.
 */
export function applyOp(doc: PageDocument, op: ResolvedOp): PageDocument {
  const modules = [...doc.modules];
  switch (op.op) {
    case 'addModule':
      modules.splice(Math.min(Math.max(op.index, 0), modules.length), 0, op.module);
      return { ...doc, modules };
    case 'removeModule':
      return { ...doc, modules: modules.filter((m) => m.id !== op.moduleId) };
    case 'moveModule': {
      const i = at(doc, op.moduleId);
      if (i < 0) return doc;
      const [moved] = modules.splice(i, 1);
      modules.splice(Math.min(Math.max(op.toIndex, 0), modules.length), 0, moved!);
      return { ...doc, modules };
    }
    case 'setField':
    case 'setFields':
    case 'setHidden': {
      const i = at(doc, op.moduleId);
      if (i < 0) return doc;
      const m = modules[i]!;
      modules[i] =
        op.op === 'setField' ? { ...m, fields: { ...m.fields, [op.field]: op.value } } : op.op === 'setFields' ? { ...m, fields: { ...m.fields, ...op.fields } } : { ...m, hidden: op.hidden };
      return { ...doc, modules };
    }
    case 'replaceModules':
      return { ...doc, modules: op.modules };
    case 'setSeo':
      return { ...doc, seo: { ...doc.seo, ...op.seo } };
    case 'setPage':
      return { ...doc, ...op.fields };
  }
}

/** A batch of ops as one new revision. */
export const applyBatch = (doc: PageDocument, ops: readonly ResolvedOp[], revision: number): PageDocument => ({ ...ops.reduce(applyOp, doc), revision });
