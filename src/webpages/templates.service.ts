import { randomUUID } from 'node:crypto';
import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import type { PagePatchInput } from '../../aggregates/page/page.patch.js';
import { templateOf } from '../../read-models/pages.queries.js';
import { loadRecordObject } from '../../read-models/records.queries.js';
import { traitOf } from '../../read-models/traits.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { ModulesService } from './modules.service.js';
import type { CmsPage, TemplateBody } from './pages.schemas.js';
import { viewOfState, type PagesService } from './pages.service.js';

const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * Template webpages (spec 4.4, 6.5): one per object, environment and locale, a page stream with
 * `template` set and no record. Another company's object is the same 404 as a missing one.
 */
export function makeTemplatesService(deps: { db: Db; pages: PagesService; modules: ModulesService }) {
  const { db, pages, modules } = deps;

  async function objectWithPage(tenant: string, objectName: string) {
    const object = await loadRecordObject(db, tenant, objectName);
    if (!object) throw notFound('Object', objectName);
    if (!(await traitOf(db, tenant, object.objectUuid, 'Page'))) {
      throw invalid('params.objectName', `the object ${objectName} has no Page trait`, `Add the Page trait first: POST /api/v2/traits/${object.objectUuid}/Page`, 'RELATION_NOT_ALLOWED');
    }
    return object;
  }

  return {
    /** The template of an object in an environment and locale (default: the environment's htmlLang). */
    async get(tenant: string, objectName: string, environment: string, locale: string | undefined): Promise<CmsPage> {
      const object = await loadRecordObject(db, tenant, objectName);
      const env = object ? await pages.environmentOf(tenant, environment, 'params.environment').catch(() => null) : null;
      const row = object && env ? await templateOf(db, tenant, object.objectUuid, env.key, locale ?? env.html_lang) : null;
      if (!row) throw notFound('Template webpage', `of ${objectName} in ${environment}`);
      return pages.dto(pages.viewOfRow(row), tenant);
    },

    /** Creates the template (`created`) or changes it: one patch batch either way, which appends PageTemplateChanged. */
    async save(context: CommandContext, objectName: string, environment: string, b: TemplateBody): Promise<{ page: CmsPage; created: boolean }> {
      const { tenant } = context;
      const object = await objectWithPage(tenant, objectName);
      const env = await pages.environmentOf(tenant, environment, 'params.environment');
      const locale = b.locale ?? env.html_lang;
      const existing = await templateOf(db, tenant, object.objectUuid, env.key, locale);
      const fields = Object.fromEntries((['title', 'excerpt', 'css', 'headJs', 'bodyJs'] as const).filter((k) => b[k] !== undefined).map((k) => [k, b[k]]));
      const patches: PagePatchInput[] = [
        ...(Object.keys(fields).length ? [{ op: 'setPage', fields }] : []),
        ...(b.seo ? [{ op: 'setSeo', seo: b.seo }] : []),
        ...(b.modules ? [{ op: 'replaceModules', modules: b.modules }] : []),
      ];
      let pageUuid = existing?.page_uuid;
      if (!pageUuid) {
        pageUuid = randomUUID();
        await pages.run(
          tenant,
          pageUuid,
          {
            type: 'CreatePage',
            info: { pageUuid, recordUuid: NIL, objectUuid: object.objectUuid, objectName: object.name, environment: env.key, locale, template: true },
            title: b.title ?? `${object.label} template`,
            slug: `template-${pageUuid.slice(0, 8)}`,
            protection: { type: 'none' },
          },
          context,
        );
      }
      const freshIds = Array.from({ length: b.modules?.length ?? 0 }, () => randomUUID());
      const handled = await pages.run(tenant, pageUuid, { type: 'PatchPage', patches, freshIds, catalogue: await modules.catalogue(tenant, context.userUuid) }, context);
      return { page: await pages.dto(viewOfState(handled.state), tenant), created: !existing };
    },
  };
}
export type TemplatesService = ReturnType<typeof makeTemplatesService>;
