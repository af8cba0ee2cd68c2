import { randomUUID } from 'node:crypto';
import type { MenuItem } from '../../aggregates/web-menu/web-menu.schemas.js';
import { environmentsOf } from '../../read-models/cms-environments.queries.js';
import { menuNamesTaken, pageRecords, recordPagesTaken, slugsTaken } from '../../read-models/cms-export.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EnvironmentsService } from '../webpages/environments.service.js';
import type { ModulesService } from '../webpages/modules.service.js';
import type { PagesService } from '../webpages/pages.service.js';
import type { TranslationsService } from '../webpages/translations.service.js';
import type { WebMenusService } from '../webpages/web-menus.service.js';
import type { CmsExport, ImportChange } from './cms-export.schemas.js';
import { parseExport, planImport, type ImportPlan } from './cms-import.plan.js';

export interface CmsServices {
  environments: EnvironmentsService;
  modules: ModulesService;
  pages: PagesService;
  menus: WebMenusService;
  translations: TranslationsService;
}

/** How many pages an import writes at a time. */
const PAGE_WRITERS = 8;

/** `fn` over `items`, at most `n` at a time; the first failure is thrown once the others in flight end. */
async function inParallel<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(n, items.length) }, worker));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

const remapItems = (items: readonly MenuItem[], pages: ReadonlyMap<string, string>): MenuItem[] =>
  items.map((item) => ({
    ...item,
    ...(item.pageUuid === undefined ? {} : { pageUuid: pages.get(item.pageUuid)! }),
    ...(item.children === undefined ? {} : { children: remapItems(item.children, pages) }),
  }));

/**
 * Imports a site document into the caller's company: every check first (`planImport`, on facts
 * read beforehand), then the writes through the CMS services, each an event as if an editor made
 * it. A dry run stops after the checks and answers the list of changes.
 */
export function makeCmsImportService(deps: { db: Db; cms: CmsServices }) {
  const { db, cms } = deps;

  async function factsFor(tenant: string, doc: CmsExport, recordMap: Record<string, string>, now: number) {
    const targetRecord = (u: string) => recordMap[u] ?? u;
    const [environments, catalogue, records, slugs, places, menus] = await Promise.all([
      environmentsOf(db, tenant),
      cms.modules.catalogue(tenant, null),
      pageRecords(db, tenant, [...new Set(doc.pages.map((p) => targetRecord(p.recordUuid)))]),
      slugsTaken(db, tenant, doc.pages.map((p) => ({ environment: p.environment, locale: p.locale, slug: p.document.slug }))),
      recordPagesTaken(db, tenant, doc.pages.map((p) => ({ recordUuid: targetRecord(p.recordUuid), environment: p.environment, locale: p.locale }))),
      menuNamesTaken(db, tenant, doc.menus.map((m) => ({ environment: m.environment, name: m.name }))),
    ]);
    return { nowSeconds: Math.floor(now / 1000), environments, catalogue, records, recordMap, slugsTaken: slugs, recordPagesTaken: places, menuNamesTaken: menus };
  }

  async function apply(context: CommandContext, plan: ImportPlan): Promise<ImportChange[]> {
    const made = new Map<string, string>();
    const { makeDefault, create } = plan.environments;
    const envs = makeDefault ? [...create.filter((e) => e.key === makeDefault), ...create.filter((e) => e.key !== makeDefault)] : create;
    for (const e of envs) await cms.environments.create(context, { ...e, default: e.key === makeDefault });
    for (const m of plan.modules) await cms.modules.create(context, null, m);
    // Pages are independent streams: several at a time, so the event store's group commit takes
    // their appends together. Each page's publication follows its creation.
    await inParallel(plan.pages, PAGE_WRITERS, async (page) => {
      const pageUuid = randomUUID();
      const { document, environment, locale, protection } = page.source;
      const run = (command: Parameters<PagesService['run']>[2]) => cms.pages.run(context.tenant, pageUuid, command, context);
      await run({
        type: 'CreatePage',
        info: { pageUuid, recordUuid: page.recordUuid, objectUuid: page.objectUuid, objectName: page.objectName, environment, locale, template: false },
        title: document.title,
        slug: document.slug,
        protection: { type: protection === 'none' ? 'none' : 'members' },
        document: { modules: document.modules, seo: document.seo, excerpt: document.excerpt, css: document.css, headJs: document.headJs, bodyJs: document.bodyJs },
      });
      made.set(page.source.uuid, pageUuid);
      const now = Math.floor(context.now / 1000);
      if (page.publishNow || page.publishAt !== null) await run({ type: 'PublishPage', publishAt: page.publishAt ?? undefined, now });
      if (page.unpublishAt !== null) await run({ type: 'UnpublishPage', unpublishAt: page.unpublishAt, now });
    });
    await inParallel(plan.translations, PAGE_WRITERS, ([a, b]) => cms.translations.link(context, made.get(a)!, made.get(b)!));
    for (const m of plan.menus) {
      const row = await cms.menus.create(context, { name: m.name, label: m.label, environment: m.environment, items: remapItems(m.items as MenuItem[], made) });
      made.set(m.uuid, row.menu_uuid);
    }
    return plan.changes.map((c) => (c.action === 'create' && c.sourceUuid ? { ...c, targetUuid: made.get(c.sourceUuid) ?? null } : c));
  }

  return {
    async import(context: CommandContext, body: { document?: unknown; records?: Record<string, string> }, dryRun: boolean) {
      const doc = parseExport(body.document);
      const plan = planImport(doc, await factsFor(context.tenant, doc, body.records ?? {}, context.now));
      const changes = dryRun ? plan.changes : await apply(context, plan);
      const counts: Record<string, number> = {};
      for (const c of changes) counts[`${c.kind}.${c.action}`] = (counts[`${c.kind}.${c.action}`] ?? 0) + 1;
      return { dryRun, changes, counts };
    },
  };
}
export type CmsImportService = ReturnType<typeof makeCmsImportService>;
