import { DomainError } from '../../aggregates/kernel/errors.js';
import { liveAt } from '../../aggregates/page/page.publication.js';
import { environmentsOf } from '../../read-models/cms-environments.queries.js';
import { siteMenus, siteModules, sitePages, siteTranslations } from '../../read-models/cms-export.queries.js';
import { companyOf } from '../../read-models/companies.queries.js';
import type { Db } from '../db/db.js';
import { CMS_EXPORT_FORMAT_VERSION, cmsExportSchema, exportLimits, type CmsExport } from './cms-export.schemas.js';

/**
 * One company's site as one document: environments, company module definitions, pages (not
 * templates) with their current documents, live menus and translation links. Reads only.
 */
export function makeCmsExportService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async export(tenant: string, now: number): Promise<CmsExport> {
      const [company, environments, modules, pages, menus, translations] = await Promise.all([
        companyOf(db, tenant),
        environmentsOf(db, tenant),
        siteModules(db, tenant),
        sitePages(db, tenant),
        siteMenus(db, tenant),
        siteTranslations(db, tenant),
      ]);
      const counts = { environments: environments.length, modules: modules.length, pages: pages.length, menus: menus.length, translations: translations.length };
      const over = (Object.keys(counts) as (keyof typeof counts)[]).filter((k) => counts[k] > exportLimits[k]);
      if (over.length > 0) {
        const message = `The site is larger than one export document holds: ${over.map((k) => `${counts[k]} ${k} (at most ${exportLimits[k]})`).join(', ')}`;
        throw new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion: 'Delete what the site no longer uses, or copy it in parts' }]);
      }
      const nowSeconds = Math.floor(now / 1000);
      const document: CmsExport = {
        formatVersion: CMS_EXPORT_FORMAT_VERSION,
        exportedAt: now,
        source: { companyUuid: tenant, subdomain: company?.subdomain ?? '' },
        environments: environments.map((e) => ({ key: e.key, label: e.label, routing: e.routing, slugPrefix: e.slug_prefix, hostLabel: e.host_label, htmlLang: e.html_lang, requiresAuth: e.requires_auth, default: e.is_default })),
        modules: modules.map((m) => ({ name: m.name, label: m.label, description: m.description, fields: m.fields })),
        pages: pages.map((p) => ({
          uuid: p.page_uuid,
          recordUuid: p.record_uuid,
          objectName: p.object_name,
          environment: p.environment,
          locale: p.locale,
          document: { title: p.document.title, slug: p.document.slug, excerpt: p.document.excerpt, css: p.document.css, headJs: p.document.headJs, bodyJs: p.document.bodyJs, seo: p.document.seo, modules: p.document.modules },
          protection: p.protection.type,
          publication: {
            published: liveAt({ published: p.published, everPublished: p.published, publishAt: p.publish_at, unpublishAt: p.unpublish_at }, nowSeconds),
            publishAt: p.publish_at !== null && p.publish_at > nowSeconds ? p.publish_at : null,
            unpublishAt: p.unpublish_at !== null && p.unpublish_at > nowSeconds ? p.unpublish_at : null,
          },
        })),
        menus: menus.map((m) => ({ uuid: m.menu_uuid, name: m.name, label: m.label, environment: m.environment, items: m.items })),
        translations,
      };
      // What the site holds must be what an import would take: a value the format cannot carry
      // (older data, a limit changed since) is a 409 naming it, never a 500 or a document refused later.
      const checked = cmsExportSchema.safeParse(document);
      if (checked.success) return document;
      const details = checked.error.issues.slice(0, 10).map((i) => ({ message: `${i.path.join('.')}: ${i.message}`, type: 'INVALID_VALUE' as const, correctionSuggestion: 'Change the value in the CMS so that it fits the export format (docs/cms.md)' }));
      throw new DomainError('STATE_NOT_ALLOWED', `The site holds ${checked.error.issues.length} values the export format cannot carry`, details);
    },
  };
}
export type CmsExportService = ReturnType<typeof makeCmsExportService>;
