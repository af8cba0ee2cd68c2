import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { companyBySubdomain } from '../../read-models/companies.queries.js';
import { companyActor } from '../auth/actor.js';
import type { Db } from '../db/db.js';
import { envelope, ok } from '../http/envelope.js';
import type { CompaniesService } from './companies.service.js';
import { publicSettingsSchema, toPublicSettings } from './companies.schemas.js';

/** The two read-only views of spec 2.10: by subdomain without login (4.4), and the caller's own (4.14). */
export const publicSettingsRoutes = (deps: { db: Db; companies: CompaniesService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/webpages/public/companySettings',
      {
        config: { auth: 'public' },
        schema: { tags: ['webpages'], description: 'Public company settings for a subdomain (no login).', querystring: z.object({ subdomain: z.string().min(1).max(63) }), response: { 200: envelope(publicSettingsSchema) } },
      },
      async (request) => {
        const row = await companyBySubdomain(deps.db, request.query.subdomain);
        if (!row) throw notFound('Company with subdomain', request.query.subdomain);
        return ok(toPublicSettings(row));
      },
    );

    app.get(
      '/webhooks/me',
      { config: { auth: {} }, schema: { tags: ['webhooks'], description: "Public company settings (2.10) of the caller's selected company.", response: { 200: envelope(publicSettingsSchema) } } },
      async (request) => {
        const actor = companyActor(request);
        return ok(toPublicSettings(await deps.companies.visible(actor, actor.tenant)));
      },
    );
  };
