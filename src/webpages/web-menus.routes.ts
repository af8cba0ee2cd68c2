import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { menuItemSchema } from '../../aggregates/web-menu/web-menu.schemas.js';
import type { WebMenuRow } from '../../read-models/web-menus.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { pageOffset, paginationBody } from '../http/pagination.js';
import { dataString, errorResponses } from '../schema/http-common.js';
import type { WebMenusService } from './web-menus.service.js';

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

const byId = z.object({ uuid: z.uuid() });
const deletedFilter = (filters: { key: string; operator: string; value?: unknown }[]) => filters.some((f) => f.key === 'deleted' && f.operator === 'equals' && f.value === true);
const environmentFilter = (filters: { key: string; operator: string; value?: unknown }[]) => {
  const f = filters.find((x) => x.key === 'environment' && x.operator === 'equals');
  return typeof f?.value === 'string' ? f.value : null;
};

/** `/webmenus`: CRUD, and restore (spec 3, 4.4). Reads need a company role, writes `webpages:write`. */
export const webMenusRoutes = (deps: { menus: WebMenusService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { menus } = deps;
    const render = (tenant: string, row: WebMenuRow) => app.audit.one(tenant, row, toMenu);

    app.post('/webmenus', { config: write, schema: { tags, description: 'Creates a web menu in an environment. Items: a link (url), a page of the company (pageUuid), or a heading (neither), three levels at most.', body: createBody, response: { 201: envelope(webMenuSchema), ...errors } } }, async (request, reply) => {
      reply.code(201);
      return ok(await render(companyActor(request).tenant, await menus.create(commandContext(request), request.body)), 'created');
    });

    app.post(
      '/webmenus/index',
      { config: read, schema: { tags, description: "The company's web menus by environment and name. Filters: {key: 'environment', operator: 'equals', value: <key>}; {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.", body: paginationBody, response: { 200: listEnvelope(webMenuSchema), ...errors } } },
      async (request) => {
        const tenant = companyActor(request).tenant;
        const { limit, page: n, filters } = request.body;
        const { rows, total } = await menus.list(tenant, { deleted: deletedFilter(filters), environment: environmentFilter(filters) }, limit, pageOffset(n, limit));
        return page(await app.audit.all(tenant, rows, toMenu), total, n, limit);
      },
    );

    app.get('/webmenus/:uuid', { config: read, schema: { tags, description: 'A web menu; a deleted one too (deletedAt set), so it can be restored.', params: byId, response: { 200: envelope(webMenuSchema), ...errors } } }, async (request) =>
      ok(await render(companyActor(request).tenant, await menus.found(companyActor(request).tenant, request.params.uuid))),
    );

    app.put('/webmenus/:uuid', { config: write, schema: { tags, description: 'Changes a web menu (items replace the tree). A deleted menu is a 409: restore it first.', params: byId, body: updateBody, response: { 200: envelope(webMenuSchema), ...errors } } }, async (request) =>
      ok(await render(companyActor(request).tenant, await menus.update(commandContext(request), request.params.uuid, request.body)), 'updated'),
    );

    app.delete('/webmenus/:uuid', { config: write, schema: { tags, description: 'Deletes a web menu (kept, restorable); public menus no longer list it.', params: byId, response: { 200: dataString, ...errors } } }, async (request) => {
      await menus.remove(commandContext(request), request.params.uuid);
      return ok('deleted', 'deleted');
    });

    app.post('/webmenus/:uuid/restore', { config: write, schema: { tags, description: 'Restores a deleted web menu (spec 3); 409 when it is not deleted, or a live menu took its name meanwhile.', params: byId, response: { 200: dataString, ...errors } } }, async (request) => {
      await menus.restore(commandContext(request), request.params.uuid);
      return ok('restored', 'restored');
    });
  };
