import { invalid } from '../kernel/errors.js';
import { applyOp, pageFieldMax, pageFieldNames, SEO_VALUE_MAX, type PageDocument, type PageModule, type ResolvedOp } from './page.document.js';
import { checkModuleFields, type ModuleCatalogue } from './page.modules.js';

/** A patch as a client sends it (spec 2.8): `op` says which of the other fields count. */
export interface PagePatchInput {
  op: string;
  moduleId?: string;
  ref?: string;
  field?: string;
  value?: unknown;
  fields?: Record<string, unknown>;
  module?: { id?: string; module?: string; fields?: Record<string, unknown>; hidden?: boolean };
  index?: number;
  toIndex?: number;
  hidden?: boolean;
  modules?: { id?: string; module?: string; fields?: Record<string, unknown>; hidden?: boolean }[];
  seo?: Record<string, unknown>;
}

export const patchOps = ['addModule', 'removeModule', 'moveModule', 'setField', 'setFields', 'hideModule', 'showModule', 'replaceModules', 'setSeo', 'setPage'] as const;

export const MAX_MODULES = 500;
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const bad = (field: string, message: string, suggestion: string) => invalid(field, `${field}: ${message}`, suggestion, 'INVALID_VALUE');

/** Checks a slug; the message names the field. */
export function checkSlug(field: string, slug: string) {
  if (!SLUG.test(slug) || slug.length > pageFieldMax.slug) throw bad(field, `"${slug.slice(0, 60)}" is not a slug`, 'Use 1-200 lowercase letters, digits and single hyphens, e.g. "spring-offer"');
}

/** A working batch: the document as the ops so far left it, the refs they named, and fresh ids. */
interface Batch {
  doc: PageDocument;
  refs: Map<string, string>;
  ids: string[];
  touched: Set<string>;
}

function moduleIdOf(p: PagePatchInput, f: string, b: Batch): string {
  if (p.moduleId === undefined && p.ref === undefined) throw bad(`${f}.moduleId`, `${p.op} needs moduleId (or the ref of a module added earlier in this batch)`, 'Send moduleId: the id of a module on the page');
  const id = p.moduleId ?? b.refs.get(p.ref!);
  if (id === undefined) throw bad(`${f}.ref`, `no module was added with ref "${p.ref}" earlier in this batch`, 'Give the addModule patch that ref, and put it before this one');
  if (!b.doc.modules.some((m) => m.id === id)) {
    throw bad(`${f}.moduleId`, `module ${id} is not on the page`, `Use the id of one of the page's modules: ${b.doc.modules.map((m) => m.id).slice(0, 20).join(', ') || '(the page has none)'}`);
  }
  return id;
}

function indexIn(value: number | undefined, max: number, field: string, name: string): number {
  if (value === undefined) throw bad(field, `${name} is required`, `Send ${name}: an integer from 0 to ${max}`);
  if (!Number.isInteger(value) || value < 0 || value > max) throw bad(field, `${name} ${value} is out of range`, `Send ${name}: an integer from 0 to ${max}`);
  return value;
}

function newModule(raw: PagePatchInput['module'], field: string, b: Batch, taken: Set<string>): PageModule {
  if (!raw || typeof raw !== 'object') throw bad(field, 'module is required', 'Send module: {module: "<module name>", fields: {...}}');
  if (typeof raw.module !== 'string' || raw.module.length === 0 || raw.module.length > 200) throw bad(`${field}.module`, 'the module name is required', 'Send module.module: the name of a module definition');
  if (raw.fields !== undefined && (typeof raw.fields !== 'object' || raw.fields === null || Array.isArray(raw.fields))) throw bad(`${field}.fields`, 'fields must be a map', 'Send fields as {"name": value}');
  const id = raw.id ?? b.ids.shift();
  if (id === undefined) throw new Error('page patch: the handler gave too few fresh module ids');
  if (typeof id !== 'string' || id.length === 0 || id.length > 100) throw bad(`${field}.id`, 'a module id is 1-100 characters', 'Leave id out to get a generated one');
  if (taken.has(id)) throw bad(`${field}.id`, `module id ${id} is already on the page`, 'Leave id out to get a generated one, or use another id');
  taken.add(id);
  return { id, module: raw.module, fields: { ...(raw.fields ?? {}) }, hidden: raw.hidden ?? false };
}

function resolve(p: PagePatchInput, f: string, b: Batch): ResolvedOp {
  const n = b.doc.modules.length;
  switch (p.op) {
    case 'addModule': {
      const module = newModule(p.module, `${f}.module`, b, new Set(b.doc.modules.map((m) => m.id)));
      if (p.ref !== undefined) {
        if (b.refs.has(p.ref)) throw bad(`${f}.ref`, `ref "${p.ref}" is used twice in this batch`, 'Give each added module its own ref');
        b.refs.set(p.ref, module.id);
      }
      return { op: 'addModule', module, index: p.index === undefined ? n : indexIn(p.index, n, `${f}.index`, 'index') };
    }
    case 'removeModule':
      return { op: 'removeModule', moduleId: moduleIdOf(p, f, b) };
    case 'moveModule': {
      const moduleId = moduleIdOf(p, f, b);
      return { op: 'moveModule', moduleId, toIndex: indexIn(p.toIndex, n - 1, `${f}.toIndex`, 'toIndex') };
    }
    case 'setField': {
      const moduleId = moduleIdOf(p, f, b);
      if (typeof p.field !== 'string' || p.field.length === 0 || p.field.length > 200) throw bad(`${f}.field`, 'field is required', 'Send field: the name of one of the module fields');
      if (p.value === undefined) throw bad(`${f}.value`, 'value is required', 'Send value (null clears the field)');
      return { op: 'setField', moduleId, field: p.field, value: p.value };
    }
    case 'setFields': {
      const moduleId = moduleIdOf(p, f, b);
      if (!p.fields || typeof p.fields !== 'object' || Array.isArray(p.fields)) throw bad(`${f}.fields`, 'fields is required', 'Send fields: {"name": value}');
      return { op: 'setFields', moduleId, fields: p.fields };
    }
    case 'hideModule':
    case 'showModule':
      return { op: 'setHidden', moduleId: moduleIdOf(p, f, b), hidden: p.op === 'hideModule' };
    case 'replaceModules': {
      if (!Array.isArray(p.modules)) throw bad(`${f}.modules`, 'modules is required', 'Send modules: the full list of modules, in page order');
      const taken = new Set<string>();
      return { op: 'replaceModules', modules: p.modules.map((m, i) => newModule(m, `${f}.modules.${i}`, b, taken)) };
    }
    case 'setSeo':
      if (!p.seo || typeof p.seo !== 'object' || Array.isArray(p.seo)) throw bad(`${f}.seo`, 'seo is required', 'Send seo: {title, excerpt, slug, image}');
      for (const [k, v] of Object.entries(p.seo)) {
        if (v !== null && typeof v !== 'string') throw bad(`${f}.seo.${k}`, 'an SEO value is a string or null', `Send seo.${k} as a string`);
        if (typeof v === 'string' && v.length > SEO_VALUE_MAX) throw bad(`${f}.seo.${k}`, `an SEO value is at most ${SEO_VALUE_MAX} characters`, `Shorten seo.${k}`);
      }
      if (typeof p.seo.slug === 'string' && p.seo.slug !== '') checkSlug(`${f}.seo.slug`, p.seo.slug);
      return { op: 'setSeo', seo: p.seo };
    case 'setPage': {
      if (!p.fields || typeof p.fields !== 'object' || Array.isArray(p.fields)) throw bad(`${f}.fields`, 'fields is required', `Send fields: a map of ${pageFieldNames.join(', ')}`);
      const fields: Partial<Record<(typeof pageFieldNames)[number], string>> = {};
      for (const [k, v] of Object.entries(p.fields)) {
        const name = pageFieldNames.find((x) => x === k);
        if (!name) throw bad(`${f}.fields.${k}`, `${k} is not a page field`, `Set only ${pageFieldNames.join(', ')}`);
        if (typeof v !== 'string' || v.length > pageFieldMax[name]) throw bad(`${f}.fields.${k}`, `${k} is a string of at most ${pageFieldMax[name]} characters`, `Send ${k} as a shorter string`);
        if (name === 'slug') checkSlug(`${f}.fields.slug`, v);
        if (name === 'title' && v.trim() === '') throw bad(`${f}.fields.title`, 'the title is empty', 'Send a title');
        fields[name] = name === 'title' ? v.trim() : v;
      }
      return { op: 'setPage', fields };
    }
    default:
      throw bad(`${f}.op`, `unknown op "${String(p.op).slice(0, 40)}"`, `Use one of: ${patchOps.join(', ')}`);
  }
}

/**
 * Checks a batch against the document and resolves it (refs to ids, fresh ids for new modules).
 * Every op sees the document as the ops before it left it. The first problem throws: a batch
 * applies whole or not at all. `catalogue` (module definitions) checks the fields of every module
 * the batch adds or changes; a retired definition only for modules the page already held.
 */
export function resolvePatches(doc: PageDocument, patches: readonly PagePatchInput[], freshIds: readonly string[], catalogue: ModuleCatalogue | null): { ops: ResolvedOp[]; document: PageDocument } {
  if (patches.length === 0) throw bad('body.patches', 'the batch is empty', 'Send at least one patch');
  const b: Batch = { doc, refs: new Map(), ids: [...freshIds], touched: new Set() };
  const ops = patches.map((p, i) => {
    const op = resolve(p, `body.patches.${i}`, b);
    b.doc = applyOp(b.doc, op);
    if (b.doc.modules.length > MAX_MODULES) throw bad(`body.patches.${i}`, `a page holds at most ${MAX_MODULES} modules`, 'Remove modules first');
    if (op.op === 'addModule') b.touched.add(op.module.id);
    if (op.op === 'replaceModules') op.modules.forEach((m) => b.touched.add(m.id));
    if (op.op === 'setField' || op.op === 'setFields') b.touched.add(op.moduleId);
    return op;
  });
  if (catalogue) {
    // A module the page held before the batch (same id, same definition) may keep a retired definition.
    const before = new Map(doc.modules.map((m) => [m.id, m.module]));
    b.doc.modules.forEach((m, i) => {
      if (b.touched.has(m.id)) checkModuleFields(catalogue, m, `body.patches (module ${m.id} at index ${i})`, before.get(m.id) === m.module);
    });
  }
  return { ops, document: b.doc };
}
