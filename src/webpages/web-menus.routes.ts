import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, invalid, notFound } from '../../aggregates/kernel/errors.js';
import { checkItems, webMenuDecider, type WebMenuCommand } from '../../aggregates/web-menu/web-menu.decider.js';
import { webMenuStream } from '../../aggregates/web-menu/web-menu.events.js';
import { menuItemSchema, walkItems, type MenuItem } from '../../aggregates/web-menu/web-menu.schemas.js';
import { environmentByKey } from '../../read-models/cms-environments.queries.js';
import { listWebMenus, missingPages, webMenuByUuid, type WebMenuRow } from '../../read-models/web-menus.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { pageOffset, paginationBody } from '../http/pagination.js';
import { dataString, errorResponses } from '../schema/http-common.js';

const tags = ['webmenus'];
const read = { auth: {} };
const write = { auth: { scopes: ['webpages:write' as const] } };
const errors = errorResponses(400, 401, 403, 404, 409);

const NAME = z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'lowercase letters, digits, _ and -, starting with a letter');
const ENV = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/);
const items = z.array(menuItemSchema).max(200);
const createBody = z
  .strictObject({ name: NAME, label: z.string().min(1).max(200).optional(), environment: ENV.optional().describe('Default: the default environment'), items: items.default([]) })
  .meta({ id: 'WebMenuCreate' });
const updateBody = z.strictObject({ name: NAME.optional(), label: z.string().min(1).max(200).optional(), environment: ENV.optional(), items: items.optional() }).meta({ id: 'WebMenuUpdate' });

export const webMenuSchema = z
  .object({ uuid: z.string(), name: z.string(), label: z.string(), environment: z.string(), items: z.array(z.record(z.string(), z.unknown())), ...auditFields })
  .meta({ id: 'WebMenu' });

const toMenu = (r: WebMenuRow, actors: Actors): z.infer<typeof webMenuSchema> => ({
  uuid: r.menu_uuid,
  name: r.name,
  label: r.label,
  environment: r.environment,
  items: r.items as unknown as Record<string, unknown>[],
  ...auditFieldsOf(r, actors),
});

const nameTaken = () =>
  new DomainError('CONFLICT', 'a web menu of this name exists in this environment', [
    { message: 'A live web menu of this name exists in this environment', type: 'GENERAL', correctionSuggestion: 'Use another name, or change (or delete) that menu' },
  ]);

/** Web menus: named link trees of a CMS environment; deleted ones stay until restored. */
export function makeWebMenus(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;
  async function run(menuUuid: string, command: WebMenuCommand, context: CommandContext) {
    try {
      await handleCommand({ store, decider: webMenuDecider, streamId: webMenuStream(menuUuid), command, context });
    } catch (err) {
      if (isUniqueViolation(err, 'rm_web_menus_name_unique')) throw nameTaken();
      throw err;
    }
  }
  async function found(tenant: string, menuUuid: string) {
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
    const [row] = await db.query<{ key: string }>('select key from rm_cms_environments where tenant = $1 and is_default', [tenant]);
    if (!row) throw invalid('body.environment', 'the company has no CMS environment', 'Create one with POST /api/v2/cms/environments (the first one becomes the default)', 'NOT_FOUND');
    return row.key;
  }
  return { run, found, checkRefs, defaultEnvironmentKey };
}
type WebMenus = ReturnType<typeof makeWebMenus>;

const byId = z.object({ uuid: z.uuid() });
const deletedFilter = (filters: { key: string; operator: string; value?: unknown }[]) => filters.some((f) => f.key === 'deleted' && f.operator === 'equals' && f.value === true);
const environmentFilter = (filters: { key: string; operator: string; value?: unknown }[]) => {
  const f = filters.find((x) => x.key === 'environment' && x.operator === 'equals');
  return typeof f?.value === 'string' ? f.value : null;
};

/** `/webmenus`: CRUD, and restore (spec 3, 4.4). Reads need a company role, writes `webpages:write`. */
export const webMenusRoutes = (deps: { db: Db; menus: WebMenus }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, menus } = deps;
    const render = async (tenant: string, menuUuid: string) => app.audit.one(tenant, await menus.found(tenant, menuUuid), toMenu);

    app.post('/webmenus', { config: write, schema: { tags, description: 'Creates a web menu in an environment. Items: a link (url), a page of the company (pageUuid), or a heading (neither), three levels at most.', body: createBody, response: { 201: envelope(webMenuSchema), ...errors } } }, async (request, reply) => {
      const context = commandContext(request);
      const b = request.body;
      const environment = b.environment ?? (await menus.defaultEnvironmentKey(context.tenant));
      await menus.checkRefs(context.tenant, environment, b.items);
      const menuUuid = randomUUID();
      await menus.run(menuUuid, { type: 'CreateWebMenu', menuUuid, settings: { name: b.name, label: b.label ?? b.name, environment, items: b.items } }, context);
      reply.code(201);
      return ok(await render(context.tenant, menuUuid), 'created');
    });

    app.post(
      '/webmenus/index',
      { config: read, schema: { tags, description: "The company's web menus by environment and name. Filters: {key: 'environment', operator: 'equals', value: <key>}; {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.", body: paginationBody, response: { 200: listEnvelope(webMenuSchema), ...errors } } },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const { limit, page: n, filters } = request.body;
        const { rows, total } = await listWebMenus(db, tenant, { deleted: deletedFilter(filters), environment: environmentFilter(filters) }, limit, pageOffset(n, limit));
        return page(await app.audit.all(tenant, rows, toMenu), total, n, limit);
      },
    );

    app.get('/webmenus/:uuid', { config: read, schema: { tags, description: 'A web menu; a deleted one too (deletedAt set), so it can be restored.', params: byId, response: { 200: envelope(webMenuSchema), ...errors } } }, async (request) =>
      ok(await render(companyActor(request).tenant, request.params.uuid)),
    );

    app.put('/webmenus/:uuid', { config: write, schema: { tags, description: 'Changes a web menu (items replace the tree). A deleted menu is a 409: restore it first.', params: byId, body: updateBody, response: { 200: envelope(webMenuSchema), ...errors } } }, async (request) => {
      const context = commandContext(request);
      await menus.found(context.tenant, request.params.uuid);
      await menus.checkRefs(context.tenant, request.body.environment, request.body.items);
      await menus.run(request.params.uuid, { type: 'UpdateWebMenu', changes: request.body }, context);
      return ok(await render(context.tenant, request.params.uuid), 'updated');
    });

    app.delete('/webmenus/:uuid', { config: write, schema: { tags, description: 'Deletes a web menu (kept, restorable); public menus no longer list it.', params: byId, response: { 200: dataString, ...errors } } }, async (request) => {
      const context = commandContext(request);
      await menus.found(context.tenant, request.params.uuid);
      await menus.run(request.params.uuid, { type: 'DeleteWebMenu' }, context);
      return ok('deleted', 'deleted');
    });

    app.post('/webmenus/:uuid/restore', { config: write, schema: { tags, description: 'Restores a deleted web menu (spec 3); 409 when it is not deleted, or a live menu took its name meanwhile.', params: byId, response: { 200: dataString, ...errors } } }, async (request) => {
      const context = commandContext(request);
      await menus.found(context.tenant, request.params.uuid);
      await menus.run(request.params.uuid, { type: 'RestoreWebMenu' }, context);
      return ok('restored', 'restored');
    });
  };
