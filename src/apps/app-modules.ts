import type { ModuleCatalogue } from '../../aggregates/page/page.modules.js';
import type { ModuleField } from '../../aggregates/module/module.schemas.js';
import { installedCmsModules } from '../../read-models/apps.queries.js';
import type { Db } from '../db/db.js';

/**
 * The CMS modules the company's installed apps offer its pages (spec 4.12), named
 * `<appUuid>/<name>` (a company or personal module name holds no `/`, so none collides). Retired
 * ones are kept, marked: pages that hold them stay valid, a page cannot newly add them. An
 * uninstalled app offers nothing (docs/apps.md).
 */
export function appModuleCatalogue(db: Db) {
  return async (tenant: string): Promise<ModuleCatalogue> => {
    const rows = await installedCmsModules(db, tenant);
    return new Map(
      rows.map((r) => {
        const d = r.definition as { label: string; description: string; fields: ModuleField[] };
        return [r.name, { name: r.name, label: d.label, description: d.description, fields: d.fields, retired: r.retired }];
      }),
    );
  };
}
export type AppModuleCatalogue = ReturnType<typeof appModuleCatalogue>;
