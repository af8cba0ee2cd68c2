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
import type { CompanyDataCopies } from '../sandboxes/company-data-copy.js';
import { companyCopyOf, copiedUuids } from '../../read-models/sandboxes.queries.js';
import { commandContext } from '../auth/actor.js';
import { copyBodySchema, copyStatusSchema, copiedUuidSchema, toCopyStatus } from './partners.schemas.js';

const tags = ['partners'];
const reseller = { auth: { roles: ['RESELLER'] as const } };

/** Resellers (spec 1.16): companies they manage, and copies of them. */
export const partnersRoutes = (deps: { db: Db; store: EventStore; companies: CompaniesService; dataCopies: CompanyDataCopies }): FastifyPluginAsyncZod =>
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

    /** A company the caller's reseller company manages (another's, or none: the same 404). */
    async function managed(tenant: string, uuid: string) {
      const company = await companyOf(deps.db, uuid);
      if (!company || company.managed_by !== tenant) throw notFound('Company', uuid);
      return company;
    }

    app.post(
      '/companies/:uuid/copy',
      {
        config: reseller,
        schema: {
          tags,
          description:
            'Creates a managed company as a copy of another managed company: its settings and teams at once; then, in the background, its objects, properties, relations, records and their links, forms, pages, environments, menus and modules (as of `asOf` when given) as new events with new uuids. Follow the copy with GET .../copy on the new company.',
          params: z.object({ uuid: z.uuid() }),
          body: copyBodySchema,
          response: { 201: envelope(companySchema) },
        },
      },
      async (request, reply) => {
        const actor = companyActor(request);
        const source = await managed(actor.tenant, request.params.uuid);
        const { asOf: rawAsOf, ...body } = request.body;
        const asOf = deps.dataCopies.parseAsOf(rawAsOf);
        const copy = await deps.companies.create(actor, { ...body, managedBy: actor.tenant, copiedFrom: source.company_uuid, settings: source.settings }, request.id);
        const context = commandContext(request, copy.company_uuid);
        for (const step of companyCopySteps) await step({ db: deps.db, store: deps.store, fromTenant: source.company_uuid, context });
        await deps.dataCopies.start(context, source.company_uuid, asOf);
        reply.code(201);
        return ok(await companyView(app.audit, copy), 'copied');
      },
    );

    app.get(
      '/companies/:uuid/copy',
      { config: reseller, schema: { tags, description: "A managed company's data copy: its source, status and percentage (404 when the company is no copy with data).", params: z.object({ uuid: z.uuid() }), response: { 200: envelope(copyStatusSchema) } } },
      async (request) => {
        const company = await managed(companyActor(request).tenant, request.params.uuid);
        const row = await companyCopyOf(deps.db, company.company_uuid);
        if (!row) throw notFound('Company copy', request.params.uuid);
        return ok(toCopyStatus(row));
      },
    );

    app.post(
      '/companies/:uuid/copy/uuids/index',
      {
        config: reseller,
        schema: {
          tags,
          description: "A managed copy's uuid mapping: each source uuid and the copy's, with its kind (object, property, relation, record, form, page, ...). Filter {key: 'kind', operator: 'equals', value: 'record'}.",
          params: z.object({ uuid: z.uuid() }),
          body: paginationBody,
          response: { 200: listEnvelope(copiedUuidSchema) },
        },
      },
      async (request) => {
        const company = await managed(companyActor(request).tenant, request.params.uuid);
        const { limit, page: n, filters } = request.body;
        const kind = filters.find((f) => f.key === 'kind')?.value;
        const { rows, total } = await copiedUuids(deps.db, company.company_uuid, { kind: typeof kind === 'string' ? kind : undefined, limit, offset: pageOffset(n, limit) });
        return page(rows.map((r) => ({ sourceUuid: r.source_uuid, copyUuid: r.copy_uuid, kind: r.kind })), total, n, limit);
      },
    );
  };
