import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { formBodySchema, formSchema, submissionSchema, toForm, toSubmission } from './forms.schemas.js';
import type { FormsService } from './forms.service.js';
import { formSettingsSchema } from '../../aggregates/form/form.events.js';
import { historyRoute, withAsOf } from '../history/history-routes.js';

const tags = ['forms'];
const params = z.object({ uuid: z.uuid() });
const read = { auth: { scopes: ['forms:read' as const] } };
const write = { auth: { scopes: ['forms:write' as const] } };

/** Forms (spec 1.7, 3, 4.5): CRUD, the index per object and for the company, delete and restore, the submissions. */
export const formsRoutes = (deps: { forms: FormsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { forms } = deps;
    const tenantOf = (request: Parameters<typeof companyActor>[0]) => companyActor(request).tenant;

    app.post('/', { config: write, schema: { tags, description: 'Creates a form of an object: grid layout, steps, lead scoring, inner forms.', body: formBodySchema, response: { 201: envelope(formSchema) } } }, async (request, reply) => {
      reply.code(201);
      return ok(await app.audit.one(tenantOf(request), await forms.create(commandContext(request), request.body), toForm), 'created');
    });

    const list = async (tenant: string, body: z.infer<typeof paginationBody>, objectUuid?: string) => {
      const { limit, page: n, query, filters } = body;
      const deleted = filters.some((f) => f.key === 'deleted' && f.value === true);
      const { rows, total } = await forms.list(tenant, { deleted, objectUuid, query, limit, offset: pageOffset(n, limit) });
      return page(await app.audit.all(tenant, rows, toForm), total, n, limit);
    };
    const indexDescription = "Forms, oldest first; `query` searches names; filter {key: 'deleted', operator: 'equals', value: true} lists the deleted ones.";
    app.post('/index', { config: read, schema: { tags, description: `The company's ${indexDescription}`, body: paginationBody, response: { 200: listEnvelope(formSchema) } } }, async (request) =>
      list(tenantOf(request), request.body),
    );
    app.post(
      '/:objectUuid/index',
      { config: read, schema: { tags, description: `An object's ${indexDescription}`, params: z.object({ objectUuid: z.uuid() }), body: paginationBody, response: { 200: listEnvelope(formSchema) } } },
      async (request) => list(tenantOf(request), request.body, request.params.objectUuid.toLowerCase()),
    );

    historyRoute(app, 'forms', { config: read, tags });
    app.get('/:uuid', withAsOf(app, 'forms', { config: read, schema: { tags, params, response: { 200: envelope(formSchema) } } }), async (request) =>
      ok(await app.audit.one(tenantOf(request), await forms.found(tenantOf(request), request.params.uuid.toLowerCase()), toForm)),
    );
    app.put('/:uuid', { config: write, schema: { tags, description: 'Changes a form: the fields sent replace the current ones.', params, body: formBodySchema, response: { 200: envelope(formSchema) } } }, async (request) =>
      ok(await app.audit.one(tenantOf(request), await forms.update(commandContext(request), request.params.uuid.toLowerCase(), request.body), toForm), 'updated'),
    );
    app.delete('/:uuid', { config: write, schema: { tags, description: 'Deletes a form (restorable); returns the deleted form.', params, response: { 200: envelope(formSchema) } } }, async (request) =>
      ok(await app.audit.one(tenantOf(request), await forms.remove(commandContext(request), request.params.uuid.toLowerCase()), toForm), 'deleted'),
    );
    app.post('/:uuid/restore', { config: write, schema: { tags, description: 'Restores a deleted form, with its layout; 409 when it is not deleted.', params, response: { 200: envelope(formSchema) } } }, async (request) =>
      ok(await app.audit.one(tenantOf(request), await forms.restore(commandContext(request), request.params.uuid.toLowerCase()), toForm), 'restored'),
    );

    app.post(
      '/:uuid/submissions/index',
      { config: read, schema: { tags, description: "A form's submissions, newest first.", params, body: paginationBody, response: { 200: listEnvelope(submissionSchema) } } },
      async (request) => {
        const { limit, page: n } = request.body;
        const { rows, total } = await forms.submissions(tenantOf(request), request.params.uuid.toLowerCase(), { limit, offset: pageOffset(n, limit) });
        return page(rows.map(toSubmission), total, n, limit);
      },
    );
    app.get(
      '/:uuid/submissions/:submissionUuid',
      {
        config: read,
        schema: {
          tags, description: 'One submission, with the form as it was when it was submitted (its revision then).',
          params: z.object({ uuid: z.uuid(), submissionUuid: z.uuid() }),
          response: { 200: envelope(z.object({ submission: submissionSchema, form: formSettingsSchema.nullable() })) },
        },
      },
      async (request) => {
        const tenant = tenantOf(request);
        const formUuid = request.params.uuid.toLowerCase();
        const row = await forms.submission(tenant, formUuid, request.params.submissionUuid.toLowerCase());
        return ok({ submission: toSubmission(row), form: await forms.settingsAt(tenant, formUuid, Number(row.form_revision)) });
      },
    );
  };
