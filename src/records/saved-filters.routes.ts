import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { filterGroupSchema, filterGroupsSchema, filterItemSchema, sortItemSchema } from '../../aggregates/record-filter/filter.schema.js';
import type { SavedFilterRow } from '../../read-models/saved-filters.queries.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { errorBodySchema } from '../http/error-body.js';
import { paginationRequestSchema, pageOffset } from '../http/pagination.js';
import { actorFieldsOf, auditFieldsWithout, type Actors } from '../http/audit-fields.js';
import type { SavedFilters } from './saved-filters.service.js';
import { historyRoute, withAsOf } from '../history/history-routes.js';

const tags = ['saved filters'];
const auth = { auth: {} } as const;
const errors = Object.fromEntries([400, 401, 403, 404, 409].map((c) => [c, errorBodySchema]));
const params = z.object({ filterUuid: z.uuid() });

export const savedFilterSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    objectName: z.string(),
    filters: z.array(z.unknown()),
    groups: z.array(z.unknown()),
    filter: z.object({ groups: z.array(z.unknown()) }),
    sort: z.array(z.unknown()),
    ...auditFieldsWithout('index'),
  })
  .meta({ id: 'SavedFilter' });

const inputSchema = z
  .object({
    name: z.string().max(200).optional(),
    objectName: z.string().max(63).optional(),
    filters: z.array(filterItemSchema).max(50).optional(),
    groups: z.array(filterGroupSchema).max(20).optional(),
    filter: filterGroupsSchema.optional(),
    sort: z.array(sortItemSchema).max(10).optional(),
  })
  .strict()
  .meta({ id: 'SavedFilterBody' });

export const toSavedFilter = (r: SavedFilterRow, actors: Actors): z.infer<typeof savedFilterSchema> => ({
  uuid: r.filter_uuid,
  name: r.name,
  objectName: r.object_name,
  filters: r.filters,
  groups: r.groups,
  filter: { groups: r.groups },
  sort: r.sort,
  ...actorFieldsOf(r, actors),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletedAt: r.deleted_at,
  revision: r.revision,
});

const listBody = paginationRequestSchema
  .extend({ objectName: z.string().max(63).optional(), deleted: z.boolean().default(false).describe('true: deleted filters too') })
  .nullable()
  .optional()
  .transform((v) => v ?? { ...paginationRequestSchema.parse({}), objectName: undefined, deleted: false });

/** Saved filters under /api/v2/filters: create, list, read, update, soft delete, restore by PATCH. */
export const savedFiltersRoutes = (deps: { savedFilters: SavedFilters }): FastifyPluginAsyncZod =>
  async (app) => {
    const { savedFilters } = deps;

    app.post('/', { config: auth, schema: { tags, body: inputSchema, response: { 201: envelope(savedFilterSchema), ...errors } } }, async (request, reply) => {
      reply.code(201);
      return ok(await app.audit.one(companyActor(request).tenant, await savedFilters.create(commandContext(request), request.body), toSavedFilter), 'created');
    });

    app.post('/index', { config: auth, schema: { tags, description: 'The company\'s saved filters by name (objectName narrows to one object).', body: listBody, response: { 200: listEnvelope(savedFilterSchema), ...errors } } }, async (request) => {
      const { limit, page: n, objectName, deleted } = request.body;
      const { rows, total } = await savedFilters.list(companyActor(request).tenant, { objectName, deleted, limit, offset: pageOffset(n, limit) });
      return page(await app.audit.all(companyActor(request).tenant, rows, toSavedFilter), total, n, limit);
    });

    historyRoute(app, 'saved-filters', { config: auth, tags, param: 'filterUuid' });
    app.get('/:filterUuid', withAsOf(app, 'saved-filters', { config: auth, schema: { tags, params, response: { 200: envelope(savedFilterSchema), ...errors } } }, { param: 'filterUuid' }), async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await savedFilters.get(companyActor(request).tenant, request.params.filterUuid), toSavedFilter)),
    );

    app.put('/:filterUuid', { config: auth, schema: { tags, params, body: inputSchema, response: { 200: envelope(savedFilterSchema), ...errors } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await savedFilters.update(commandContext(request), request.params.filterUuid, request.body), toSavedFilter), 'updated'),
    );

    app.delete('/:filterUuid', { config: auth, schema: { tags, description: 'Soft-deletes the filter; PATCH restores it.', params, response: { 200: z.object({ message: z.string(), data: z.string() }), ...errors } } }, async (request) => {
      await savedFilters.remove(commandContext(request), request.params.filterUuid);
      return ok(`Saved filter ${request.params.filterUuid} deleted`, 'deleted');
    });

    app.patch('/:filterUuid', { config: auth, schema: { tags, description: 'Restores a soft-deleted saved filter (spec 4.7).', params, response: { 200: envelope(savedFilterSchema), ...errors } } }, async (request) =>
      ok(await app.audit.one(companyActor(request).tenant, await savedFilters.restore(commandContext(request), request.params.filterUuid), toSavedFilter), 'restored'),
    );
  };
