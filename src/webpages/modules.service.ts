import { randomUUID } from 'node:crypto';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { moduleDecider, type ModuleCommand } from '../../aggregates/module/module.decider.js';
import { moduleStream } from '../../aggregates/module/module.events.js';
import type { ModuleSettings } from '../../aggregates/module/module.schemas.js';
import type { ModuleCatalogue } from '../../aggregates/page/page.modules.js';
import { listModules, moduleByUuid, moduleCatalogueRows, type ModuleRow } from '../../read-models/cms-modules.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { cachedCatalogue } from './cms-cache.js';

/**
 * Module definitions (spec 4.8): the company's (`owner` null), and each user's personal ones
 * (`owner` the user). Writes take the command context first, reads the tenant first; another
 * company's or another user's module is the same 404 as a missing one.
 */
export function makeModulesService(deps: { db: Db; store: EventStore; appModules?: (tenant: string) => Promise<ModuleCatalogue> }) {
  const { db, store } = deps;
  async function run(moduleUuid: string, command: ModuleCommand, context: CommandContext) {
    await mapUniqueViolations(() => handleCommand({ store, decider: moduleDecider, streamId: moduleStream(moduleUuid), command, context }), {
      rm_cms_modules_name_unique: () => {
        throw new DomainError('CONFLICT', 'a module of this name exists', [{ message: 'A live module of this name exists here', type: 'GENERAL', correctionSuggestion: 'Use another name, or change that module' }]);
      },
    });
  }
  async function found(tenant: string, moduleUuid: string, owner: string | null): Promise<ModuleRow> {
    const row = await moduleByUuid(db, tenant, moduleUuid, owner);
    if (!row) throw notFound('Module', moduleUuid);
    return row;
  }
  /**
   * The catalogue a page edit is checked against: company modules, overridden by the editor's
   * personal ones, and the installed apps' modules (`<appUuid>/<name>`, which no other name matches).
   */
  function catalogue(tenant: string, userUuid: string | null): Promise<ModuleCatalogue> {
    return cachedCatalogue(tenant, userUuid, async () => {
      const [rows, apps] = await Promise.all([moduleCatalogueRows(db, tenant, userUuid), deps.appModules?.(tenant)]);
      return new Map([...(apps ?? []), ...rows.map((r) => [r.name, { name: r.name, label: r.label, description: r.description, fields: r.fields }] as const)]);
    });
  }
  return {
    found,
    catalogue,
    list: (tenant: string, owner: string | null, limit: number, offset: number) => listModules(db, tenant, owner, limit, offset),

    async create(context: CommandContext, owner: string | null, settings: ModuleSettings): Promise<ModuleRow> {
      const moduleUuid = randomUUID();
      await run(moduleUuid, { type: 'CreateModule', moduleUuid, ownerUuid: owner, settings }, context);
      return found(context.tenant, moduleUuid, owner);
    },

    async update(context: CommandContext, moduleUuid: string, owner: string | null, changes: Partial<ModuleSettings>): Promise<ModuleRow> {
      await found(context.tenant, moduleUuid, owner);
      await run(moduleUuid, { type: 'UpdateModule', changes }, context);
      return found(context.tenant, moduleUuid, owner);
    },

    async remove(context: CommandContext, moduleUuid: string, owner: string | null) {
      await found(context.tenant, moduleUuid, owner);
      await run(moduleUuid, { type: 'DeleteModule' }, context);
    },
  };
}
export type ModulesService = ReturnType<typeof makeModulesService>;
