import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { companySettingsSchema } from '../../aggregates/company/company-settings.js';
import { companyActor, signedInActor } from '../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import type { CompaniesService } from './companies.service.js';
import { companySchema, createCompanyBodySchema, publicSettingsSchema, companyView, renderCompanies, toPublicSettings, updateCompanyBodySchema } from './companies.schemas.js';
import { historyRoute, withAsOf } from '../history/history-routes.js';

const tags = ['companies'];
const params = z.object({ uuid: z.uuid() });

/** Companies (tenants): create, list own, read, update, settings. */
export const companiesRoutes = (deps: { companies: CompaniesService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { companies } = deps;

    app.post(
      '/',
      { config: { auth: 'signed-in' }, schema: { tags, description: 'Creates a company; the caller becomes its ADMIN.', body: createCompanyBodySchema, response: { 201: envelope(companySchema) } } },
      async (request, reply) => {
        reply.code(201);
        return ok(await companyView(app.audit, await companies.create(signedInActor(request), request.body, request.id)), 'created');
      },
    );

    app.post(
      '/index',
      { config: { auth: 'signed-in' }, schema: { tags, description: "The caller's companies (every company for SUPER_ADMIN).", body: paginationBody, response: { 200: listEnvelope(companySchema) } } },
      async (request) => {
        const { limit, page: n } = request.body;
        const { rows, total } = await companies.list(signedInActor(request), limit, pageOffset(n, limit));
        return page(await renderCompanies(app.audit, rows), total, n, limit);
      },
    );

    app.get('/:uuid', { config: { auth: {} }, schema: { tags, params, response: { 200: envelope(companySchema) } } }, async (request) =>
      ok(await companyView(app.audit, await companies.visible(companyActor(request), request.params.uuid, { managed: true }))),
    );

    app.put(
      '/:uuid',
      { config: { auth: { roles: ['ADMIN'] } }, schema: { tags, params, body: updateCompanyBodySchema, response: { 200: envelope(companySchema) } } },
      async (request) => ok(await companyView(app.audit, await companies.update(companyActor(request), request.params.uuid, request.body, request.id)), 'updated'),
    );

    historyRoute(app, 'company-settings', { config: { auth: {} }, tags, url: '/:uuid/settings/history' });
    app.get('/:uuid/settings', withAsOf(app, 'company-settings', { config: { auth: {} }, schema: { tags, params, response: { 200: envelope(publicSettingsSchema) } } }), async (request) =>
      ok(toPublicSettings(await companies.visible(companyActor(request), request.params.uuid))),
    );

    app.put(
      '/:uuid/settings',
      {
        config: { auth: { scopes: ['company-settings:write'] } },
        schema: { tags, description: 'Merges the given 2.10 fields into the settings; uuid, name and updatedAt are ignored.', params, body: companySettingsSchema, response: { 200: envelope(publicSettingsSchema) } },
      },
      async (request) => ok(toPublicSettings(await companies.updateSettings(companyActor(request), request.params.uuid, request.body, request.id)), 'updated'),
    );
  };
