import type { ZodError } from 'zod';
import { DomainError, invalid, type ErrorDetail } from '../../aggregates/kernel/errors.js';
import type { ModuleSettings } from '../../aggregates/module/module.schemas.js';
import { checkModuleFields, type ModuleCatalogue } from '../../aggregates/page/page.modules.js';
import { liveAt } from '../../aggregates/page/page.publication.js';
import { checkItems } from '../../aggregates/web-menu/web-menu.decider.js';
import { walkItems, type MenuItem } from '../../aggregates/web-menu/web-menu.schemas.js';
import type { EnvironmentRow } from '../../read-models/cms-environments.queries.js';
import { CMS_EXPORT_FORMAT_VERSION, cmsExportSchema, type CmsExport, type ExportPage, type ImportChange } from './cms-export.schemas.js';

/** At most this many problems are listed in one answer: a hostile document cannot make it huge. */
const MAX_PROBLEMS = 50;

function problemList() {
  const details: ErrorDetail[] = [];
  let more = 0;
  return {
    add(field: string, message: string, correctionSuggestion: string, type: ErrorDetail['type'] = 'VALIDATION') {
      if (details.length < MAX_PROBLEMS) details.push({ field, message: `${field}: ${message}`, type, correctionSuggestion });
      else more++;
    },
    attempt(field: string, check: () => void) {
      try {
        check();
      } catch (err) {
        const d = err instanceof DomainError ? err.details[0] : undefined;
        if (!d) throw err;
        this.add(field, d.message.replace(/^[^:]*: /, ''), d.correctionSuggestion, d.type);
      }
    },
    throwIfAny() {
      if (details.length === 0) return;
      const summary = `The import document has ${details.length + more} problems${more ? ` (the first ${details.length} listed)` : ''}; nothing was written`;
      throw new DomainError('VALIDATION_FAILED', summary, details);
    },
  };
}

/**
 * The document as this server reads it: its formatVersion first (an unknown one is one clear 400),
 * then the whole shape, every problem listed with its path.
 */
export function parseExport(document: unknown): CmsExport {
  const version = typeof document === 'object' && document !== null && !Array.isArray(document) ? (document as { formatVersion?: unknown }).formatVersion : undefined;
  if (version !== CMS_EXPORT_FORMAT_VERSION) {
    const shown = JSON.stringify(version ?? null).slice(0, 40);
    throw invalid('body.document.formatVersion', `body.document.formatVersion: ${shown} is not a format this server reads`, `Send a document made by GET /api/v2/cms/export (formatVersion ${CMS_EXPORT_FORMAT_VERSION})`, 'INVALID_VALUE');
  }
  const parsed = cmsExportSchema.safeParse(document);
  if (parsed.success) return parsed.data;
  const p = problemList();
  for (const issue of (parsed.error as ZodError).issues) p.add(['body', 'document', ...issue.path.map(String)].join('.'), issue.message, 'Send the document as GET /api/v2/cms/export wrote it', 'VALIDATION');
  p.throwIfAny();
  return cmsExportSchema.parse(document);
}

/** What the target company holds that the plan depends on, read before planning. */
export interface ImportFacts {
  nowSeconds: number;
  environments: readonly EnvironmentRow[];
  /** The company's module definitions (and its installed apps'), by name. */
  catalogue: ModuleCatalogue;
  /** The target record of each page (`records` map, else the same uuid) that is live and has the Page trait. */
  records: ReadonlyMap<string, { objectUuid: string; objectName: string }>;
  recordMap: Readonly<Record<string, string>>;
  slugsTaken: ReadonlySet<string>;
  recordPagesTaken: ReadonlySet<string>;
  menuNamesTaken: ReadonlySet<string>;
}

export interface PagePlan {
  source: ExportPage;
  recordUuid: string;
  objectUuid: string;
  objectName: string;
  /** Publish now, then schedule what is pending (epoch seconds). */
  publishNow: boolean;
  publishAt: number | null;
  unpublishAt: number | null;
}

export interface ImportPlan {
  environments: { create: CmsExport['environments'][number][]; makeDefault: string | null };
  modules: ModuleSettings[];
  pages: PagePlan[];
  translations: [string, string][];
  menus: CmsExport['menus'];
  changes: ImportChange[];
}

const change = (kind: ImportChange['kind'], action: ImportChange['action'], key: string, sourceUuid: string | null = null, note: string | null = null): ImportChange => ({ kind, action, key, sourceUuid, targetUuid: null, note });
const sameFields = (a: ModuleSettings, b: ModuleSettings) => JSON.stringify(a.fields.map((f) => [f.name, f.type, f.required, f.options ?? null])) === JSON.stringify(b.fields.map((f) => [f.name, f.type, f.required, f.options ?? null]));

/** What the sections of a plan share: the problems, the change list, and the path of a document field. */
interface Planning {
  p: ReturnType<typeof problemList>;
  changes: ImportChange[];
  at: (path: string) => string;
}

/** Environments by key: those the company has are kept as they are. */
function planEnvironments({ p, changes, at }: Planning, doc: CmsExport, facts: ImportFacts) {
  const existing = new Map(facts.environments.map((e) => [e.key, e]));
  const envKeys = new Set<string>();
  const create: CmsExport['environments'][number][] = [];
  doc.environments.forEach((e, i) => {
    if (envKeys.has(e.key)) return p.add(at(`environments.${i}.key`), `environment ${e.key} is in the document twice`, 'List each environment once');
    envKeys.add(e.key);
    const here = existing.get(e.key);
    if (here) changes.push(change('environment', 'keep', e.key, null, here.html_lang !== e.htmlLang || here.slug_prefix !== e.slugPrefix ? `kept as it is here (htmlLang ${here.html_lang}, slugPrefix "${here.slug_prefix}")` : null));
    else {
      create.push(e);
      changes.push(change('environment', 'create', e.key));
    }
  });
  if (existing.size + create.length > 50) p.add(at('environments'), `the company would have ${existing.size + create.length} environments`, 'A company has at most 50 environments: import fewer');
  const makeDefault = existing.size === 0 ? (create.find((e) => e.default) ?? create[0])?.key ?? null : null;
  const envExists = (key: string) => existing.has(key) || envKeys.has(key);
  return { create, makeDefault, envExists };
}

/** Module definitions by name: one the company has is kept, and the pages are checked against it. */
function planModules({ changes, p, at }: Planning, doc: CmsExport, facts: ImportFacts) {
  const catalogue = new Map(facts.catalogue);
  const modules: ModuleSettings[] = [];
  doc.modules.forEach((m, i) => {
    const here = facts.catalogue.get(m.name);
    if (modules.some((x) => x.name === m.name)) return p.add(at(`modules.${i}.name`), `module ${m.name} is in the document twice`, 'List each module definition once');
    if (here) changes.push(change('module', 'keep', m.name, null, sameFields(here, m) ? null : "this company's definition differs: the pages are checked against it"));
    else {
      modules.push(m);
      catalogue.set(m.name, m);
      changes.push(change('module', 'create', m.name));
    }
  });
  return { catalogue, modules };
}

/** Pages: bound to a record of this company, unique places and slugs, modules checked. */
function planPages({ p, changes, at }: Planning, doc: CmsExport, facts: ImportFacts, envExists: (key: string) => boolean, catalogue: ModuleCatalogue) {
  const pageUuids = new Map<string, ExportPage>();
  const places = new Set<string>();
  const slugs = new Set<string>();
  const pages: PagePlan[] = [];
  doc.pages.forEach((page, i) => {
    const path = `pages.${i}`;
    if (pageUuids.has(page.uuid)) return p.add(at(`${path}.uuid`), `page ${page.uuid} is in the document twice`, 'List each page once');
    pageUuids.set(page.uuid, page);
    if (!envExists(page.environment)) p.add(at(`${path}.environment`), `environment ${page.environment} is neither in the document nor in this company`, 'Add the environment to the document', 'NOT_FOUND');
    const recordUuid = facts.recordMap[page.recordUuid] ?? page.recordUuid;
    const record = facts.records.get(recordUuid);
    if (!record) p.add(at(`${path}.recordUuid`), `record ${recordUuid} is not a live record of this company whose object has the Page trait`, `Send records: {"${page.recordUuid}": "<a record of this company>"} naming the record each page is bound to here`, 'NOT_FOUND');
    const place = `${recordUuid}/${page.environment}/${page.locale}`;
    if (places.has(place) || facts.recordPagesTaken.has(place)) p.add(at(path), `record ${recordUuid} already has a page in ${page.environment} (${page.locale})`, 'Bind the page to another record (records map), or import into a company without it', 'GENERAL');
    places.add(place);
    const slug = `${page.environment}/${page.locale}/${page.document.slug}`;
    if (slugs.has(slug) || facts.slugsTaken.has(slug)) p.add(at(`${path}.document.slug`), `slug ${page.document.slug} is taken in ${page.environment} (${page.locale})`, 'Change the slug in the document or of the page here', 'INVALID_VALUE');
    slugs.add(slug);
    const ids = new Set<string>();
    page.document.modules.forEach((m, j) => {
      const where = at(`${path}.document.modules.${j}`);
      if (ids.has(m.id)) p.add(`${where}.id`, `module id ${m.id} is on the page twice`, 'Give each module of a page its own id');
      ids.add(m.id);
      p.attempt(where, () => checkModuleFields(catalogue, m, where));
    });
    const pub = { published: page.publication.published, everPublished: page.publication.published, publishAt: page.publication.publishAt, unpublishAt: page.publication.unpublishAt };
    const publishNow = liveAt(pub, facts.nowSeconds);
    const publishAt = !publishNow && pub.publishAt !== null && pub.publishAt > facts.nowSeconds ? pub.publishAt : null;
    const unpublishAt = (publishNow || publishAt !== null) && pub.unpublishAt !== null && pub.unpublishAt > (publishAt ?? facts.nowSeconds) ? pub.unpublishAt : null;
    if (publishAt !== null && pub.unpublishAt !== null && pub.unpublishAt <= publishAt) p.add(at(`${path}.publication.unpublishAt`), 'it is not after publishAt', 'Send an unpublishAt after the publishAt, or null');
    const key = `${page.environment}/${page.locale}/${page.document.slug}`;
    changes.push(change('page', 'create', key, page.uuid, page.protection === 'password' ? 'a password page is imported members-only: set its password with PUT /api/v2/webpages/{uuid}' : null));
    if (publishNow) changes.push(change('publication', 'publish', key, page.uuid, unpublishAt ? `unpublish scheduled at ${unpublishAt}` : null));
    else if (publishAt !== null) changes.push(change('publication', 'schedule', key, page.uuid, `publish at ${publishAt}${unpublishAt ? `, unpublish at ${unpublishAt}` : ''}`));
    if (record) pages.push({ source: page, recordUuid, objectUuid: record.objectUuid, objectName: record.objectName, publishNow, publishAt, unpublishAt });
  });
  return { pageUuids, pages };
}

/** Translations: both pages in the document, in two environments. */
function planTranslations({ p, changes, at }: Planning, doc: CmsExport, pageUuids: ReadonlyMap<string, ExportPage>) {
  const pairs = new Set<string>();
  const translations: [string, string][] = [];
  doc.translations.forEach(([a, b], i) => {
    const [pa, pb] = [pageUuids.get(a), pageUuids.get(b)];
    if (!pa || !pb) return p.add(at(`translations.${i}`), `page ${!pa ? a : b} is not a page of the document`, 'Link only pages the document holds', 'NOT_FOUND');
    if (pa.environment === pb.environment) return p.add(at(`translations.${i}`), `both pages are in environment ${pa.environment}`, 'Link pages of two different environments', 'INVALID_VALUE');
    const k = [a, b].sort().join();
    if (pairs.has(k)) return;
    pairs.add(k);
    translations.push([a, b]);
    changes.push(change('translation', 'link', `${pa.environment}/${pa.locale}/${pa.document.slug} ~ ${pb.environment}/${pb.locale}/${pb.document.slug}`, a));
  });
  return translations;
}

/** Menus: unique names per environment, links to pages of the document only. */
function planMenus({ p, changes, at }: Planning, doc: CmsExport, facts: ImportFacts, envExists: (key: string) => boolean, pageUuids: ReadonlyMap<string, ExportPage>) {
  const menuNames = new Set<string>();
  const menuUuids = new Set<string>();
  doc.menus.forEach((m, i) => {
    const path = at(`menus.${i}`);
    if (menuUuids.has(m.uuid)) return p.add(`${path}.uuid`, `menu ${m.uuid} is in the document twice`, 'List each menu once');
    menuUuids.add(m.uuid);
    if (!envExists(m.environment)) p.add(`${path}.environment`, `environment ${m.environment} is neither in the document nor in this company`, 'Add the environment to the document', 'NOT_FOUND');
    const name = `${m.environment}/${m.name}`;
    if (menuNames.has(name) || facts.menuNamesTaken.has(name)) p.add(`${path}.name`, `a live menu ${m.name} exists in ${m.environment}`, 'Rename the menu in the document, or the one here', 'GENERAL');
    menuNames.add(name);
    p.attempt(`${path}.items`, () => checkItems(m.items as MenuItem[]));
    for (const { item, path: itemPath } of walkItems(m.items as MenuItem[], `${path}.items`)) {
      if (item.pageUuid !== undefined && !pageUuids.has(item.pageUuid)) p.add(`${itemPath}.pageUuid`, `page ${item.pageUuid} is not a page of the document`, 'Link a page the document holds, or use a url', 'NOT_FOUND');
    }
    changes.push(change('menu', 'create', name, m.uuid));
  });
}

/**
 * Checks the whole document against the target company and returns what the import would do, or
 * throws one 400 listing every problem (the first 50). Pure: every fact is read beforehand.
 */
export function planImport(doc: CmsExport, facts: ImportFacts): ImportPlan {
  const planning: Planning = { p: problemList(), changes: [], at: (path) => `body.document.${path}` };
  const { create, makeDefault, envExists } = planEnvironments(planning, doc, facts);
  const { catalogue, modules } = planModules(planning, doc, facts);
  const { pageUuids, pages } = planPages(planning, doc, facts, envExists, catalogue);
  const translations = planTranslations(planning, doc, pageUuids);
  planMenus(planning, doc, facts, envExists, pageUuids);
  planning.p.throwIfAny();
  return { environments: { create, makeDefault }, modules, pages, translations, menus: doc.menus, changes: planning.changes };
}
