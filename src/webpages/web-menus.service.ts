import { randomUUID } from 'node:crypto';
import { DomainError, invalid, notFound } from '../../aggregates/kernel/errors.js';
import { checkItems, webMenuDecider, type WebMenuCommand } from '../../aggregates/web-menu/web-menu.decider.js';
import { webMenuStream } from '../../aggregates/web-menu/web-menu.events.js';
import { walkItems, type MenuItem, type MenuSettings } from '../../aggregates/web-menu/web-menu.schemas.js';
import { defaultEnvironment, environmentByKey } from '../../read-models/cms-environments.queries.js';
import { listWebMenus, missingPages, webMenuByUuid, type WebMenuRow } from '../../read-models/web-menus.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';

const nameTaken = () =>
  new DomainError('CONFLICT', 'a web menu of this name exists in this environment', [
    { message: 'A live web menu of this name exists in this environment', type: 'GENERAL', correctionSuggestion: 'Use another name, or change (or delete) that menu' },
  ]);

/**
 * Web menus: named link trees of a CMS environment; deleted ones stay until restored. Writes take
 * the command context first, reads the tenant first; another company's menu is the same 404 as a
 * missing one.
 */
export function makeWebMenusService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;
  async function run(menuUuid: string, command: WebMenuCommand, context: CommandContext) {
    await mapUniqueViolations(() => handleCommand({ store, decider: webMenuDecider, streamId: webMenuStream(menuUuid), command, context }), {
      rm_web_menus_name_unique: () => {
        throw nameTaken();
      },
    });
  }
  async function found(tenant: string, menuUuid: string): Promise<WebMenuRow> {
    const row = await webMenuByUuid(db, tenant, menuUuid);
    if (!row) throw notFound('Web menu', menuUuid);
    return row;
  }
  /** The environment exists, and every page an item names is a page of the company. */
  async function checkRefs(tenant: string, environment: string | undefined, menuItems: readonly MenuItem[] | undefined) {
    if (environment !== undefined && !(await environmentByKey(db, tenant, environment))) {
      throw invalid('body.environment', `body.environment: environment ${environment} does not exist in the selected company`, 'Use the key of one of GET /api/v2/cms/environments', 'NOT_FOUND');
    }
    if (menuItems) checkItems(menuItems);
    const refs = walkItems(menuItems ?? []).filter((x) => x.item.pageUuid !== undefined);
    const missing = new Set(await missingPages(db, tenant, [...new Set(refs.map((x) => x.item.pageUuid!))]));
    const bad = refs.find((x) => missing.has(x.item.pageUuid!));
    if (bad) throw invalid(`${bad.path}.pageUuid`, `${bad.path}.pageUuid: page ${bad.item.pageUuid} does not exist in the selected company`, 'Use the uuid of one of the company\'s webpages, or a url', 'NOT_FOUND');
  }
  async function defaultEnvironmentKey(tenant: string) {
    const env = await defaultEnvironment(db, tenant);
    if (!env) throw invalid('body.environment', 'the company has no CMS environment', 'Create one with POST /api/v2/cms/environments (the first one becomes the default)', 'NOT_FOUND');
    return env.key;
  }

  return {
    found,
    list: (tenant: string, filter: { deleted: boolean; environment: string | null }, limit: number, offset: number) => listWebMenus(db, tenant, filter, limit, offset),

    /** A menu of the default environment unless `environment` names one. */
    async create(context: CommandContext, input: { name: string; label?: string; environment?: string; items: MenuItem[] }): Promise<WebMenuRow> {
      const environment = input.environment ?? (await defaultEnvironmentKey(context.tenant));
      await checkRefs(context.tenant, environment, input.items);
      const menuUuid = randomUUID();
      await run(menuUuid, { type: 'CreateWebMenu', menuUuid, settings: { name: input.name, label: input.label ?? input.name, environment, items: input.items } }, context);
      return found(context.tenant, menuUuid);
    },

    async update(context: CommandContext, menuUuid: string, changes: Partial<MenuSettings>): Promise<WebMenuRow> {
      await found(context.tenant, menuUuid);
      await checkRefs(context.tenant, changes.environment, changes.items);
      await run(menuUuid, { type: 'UpdateWebMenu', changes }, context);
      return found(context.tenant, menuUuid);
    },

    async remove(context: CommandContext, menuUuid: string) {
      await found(context.tenant, menuUuid);
      await run(menuUuid, { type: 'DeleteWebMenu' }, context);
    },

    async restore(context: CommandContext, menuUuid: string) {
      await found(context.tenant, menuUuid);
      await run(menuUuid, { type: 'RestoreWebMenu' }, context);
    },
  };
}
export type WebMenusService = ReturnType<typeof makeWebMenusService>;
