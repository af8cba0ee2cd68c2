import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { companyOf, companiesManagedBy } from '../../read-models/companies.queries.js';
import { companyActor } from '../auth/actor.js';
import type { CompaniesService } from '../companies/companies.service.js';
import { companySchema, companyView, createCompanyBodySchema, renderCompanies } from '../companies/companies.schemas.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { envelope, listEnvelope, ok, page } from '../http/envelope.js';
import { paginationBody, pageOffset } from '../http/pagination.js';
import { companyCopySteps } from './company-copy.js';

const tags = ['partners'];
const reseller = { auth: { roles: ['RESELLER'] as const } };

/** Resellers (spec 1.16): companies they manage, and copies of them. */
export const partnersRoutes = (deps: { db: Db; store: EventStore; companies: CompaniesService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/companies',
      {
        config: reseller,
        schema: { tags, description: "Creates a company managed by the caller's reseller company; the caller becomes its ADMIN.", body: createCompanyBodySchema, response: { 201: envelope(companySchema) } },
      },
      async (request, reply) => {
        const actor = companyActor(request);
        reply.code(201);
        return ok(await companyView(app.audit, await deps.companies.create(actor, { ...request.body, managedBy: actor.tenant }, request.id)), 'created');
      },
    );

    app.post('/companies/index', { config: reseller, schema: { tags, body: paginationBody, response: { 200: listEnvelope(companySchema) } } }, async (request) => {
      const { limit, page: n } = request.body;
      const { rows, total } = await companiesManagedBy(deps.db, companyActor(request).tenant, limit, pageOffset(n, limit));
      return page(await renderCompanies(app.audit, rows), total, n, limit);
    });

    app.post(
      '/companies/:uuid/copy',
      {
        config: reseller,
        schema: {
          tags,
          description: 'Creates a managed company as a copy of another managed company: its settings and definitions (teams now; objects and records as they arrive).',
          params: z.object({ uuid: z.uuid() }),
          body: createCompanyBodySchema,
          response: { 201: envelope(companySchema) },
        },
      },
      async (request, reply) => {
        const actor = companyActor(request);
        const source = await companyOf(deps.db, request.params.uuid);
        if (!source || source.managed_by !== actor.tenant) throw notFound('Company', request.params.uuid);
        const copy = await deps.companies.create(actor, { ...request.body, managedBy: actor.tenant, copiedFrom: source.company_uuid, settings: source.settings }, request.id);
        const context = { tenant: copy.company_uuid, userUuid: actor.userUuid, requestId: request.id, now: Date.now() };
        for (const step of companyCopySteps) await step({ db: deps.db, store: deps.store, fromTenant: source.company_uuid, context });
        reply.code(201);
        return ok(await companyView(app.audit, copy), 'copied');
      },
    );
  };
