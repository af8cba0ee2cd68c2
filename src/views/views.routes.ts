import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { commandContext, companyActor, hasScope } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { errorBodySchema } from '../http/error-body.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { createViewBodySchema, toView, updateViewBodySchema, viewSchema } from './views.schemas.js';
import type { ViewCaller, ViewsService } from './views.service.js';
import { historyRoute, withAsOf } from '../history/history-routes.js';

const tags = ['views'];
const params = z.object({ uuid: z.uuid() });
const objectParams = z.object({ objectUuid: z.uuid() });
// Every member keeps personal views; sharing (and managing shared views) needs views:share, checked by the decider.
const member = { auth: {} };
const errors = Object.fromEntries([400, 401, 403, 404].map((c) => [c, errorBodySchema]));

const callerOf = (request: FastifyRequest): ViewCaller => ({ ctx: commandContext(request), canShare: hasScope(companyActor(request), 'views:share') });
const readerOf = (request: FastifyRequest) => ({ userUuid: companyActor(request).userUuid, canShare: hasScope(companyActor(request), 'views:share') });

/** Views (issue 21): `POST views/`, `POST views/index/{objectUuid}`, `GET PUT DELETE views/{uuid}`, `POST views/{uuid}/restore`. */
export const viewsRoutes = (deps: { views: ViewsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { views } = deps;
    const render = (request: FastifyRequest, row: Parameters<typeof toView>[0]) => app.audit.one(companyActor(request).tenant, row, toView);

    app.post(
      '/',
      { config: member, schema: { tags, description: "Saves a view of an object's records: columns, filters, sort, page size, grouping; personal, or shared with the company or a team.", body: createViewBodySchema, response: { 201: envelope(viewSchema), ...errors } } },
      async (request, reply) => {
        reply.code(201);
        return ok(await render(request, await views.create(callerOf(request), request.body)), 'created');
      },
    );

    app.post(
      '/index/:objectUuid',
      {
        config: member,
        schema: {
          tags,
          description: "The object's views you may see (yours, the company's, your teams'), oldest first; `query` searches names; filter {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.",
          params: objectParams,
          body: paginationBody,
          response: { 200: listEnvelope(viewSchema), ...errors },
        },
      },
      async (request) => {
        const { limit, page: n, query, filters } = request.body;
        const deleted = filters.some((f) => f.key === 'deleted' && f.value === true);
        const tenant = companyActor(request).tenant;
        const { rows, total } = await views.list(tenant, readerOf(request), request.params.objectUuid, { deleted, query, limit, offset: pageOffset(n, limit) });
        return page(await app.audit.all(tenant, rows, toView), total, n, limit);
      },
    );

    historyRoute(app, 'views', { config: member, tags });
    app.get('/:uuid', withAsOf(app, 'views', { config: member, schema: { tags, params, response: { 200: envelope(viewSchema), ...errors } } }), async (request) =>
      ok(await render(request, await views.found(companyActor(request).tenant, readerOf(request), request.params.uuid))),
    );

    app.put('/:uuid', { config: member, schema: { tags, params, body: updateViewBodySchema, response: { 200: envelope(viewSchema), ...errors } } }, async (request) =>
      ok(await render(request, await views.update(callerOf(request), request.params.uuid, request.body)), 'updated'),
    );

    app.delete('/:uuid', { config: member, schema: { tags, description: 'Soft-deletes the view; POST views/{uuid}/restore restores it.', params, response: { 200: envelope(z.string()), ...errors } } }, async (request) => {
      await views.remove(callerOf(request), request.params.uuid);
      return ok('deleted', 'deleted');
    });

    app.post('/:uuid/restore', { config: member, schema: { tags, description: 'Restores a deleted view; 409 when it is not deleted.', params, response: { 200: envelope(viewSchema), ...errors } } }, async (request) =>
      ok(await render(request, await views.restore(callerOf(request), request.params.uuid)), 'restored'),
    );
  };
