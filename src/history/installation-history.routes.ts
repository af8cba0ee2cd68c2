import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { installationOf } from '../../read-models/apps.queries.js';
import { installationSchema, toInstallation } from '../apps/apps.schemas.js';
import { companyActor } from '../auth/actor.js';
import type { Db } from '../db/db.js';
import { envelope, ok } from '../http/envelope.js';
import { historyRoute, withAsOf } from './history-routes.js';

const tags = ['apps'];
const params = z.object({ appUuid: z.uuid() });
// What installing and uninstalling take: the installation's settings and client id are the admins'.
const admin = { auth: { scopes: ['apps:install' as const] } };

/**
 * `GET apps/{appUuid}/installation` (the company's installation of the app, installed or not, with
 * `asOf`) and `GET apps/{appUuid}/installation/history`: the apps slice has no read of an
 * installation, so both live here.
 */
export const installationHistoryRoutes = (deps: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const o = { param: 'appUuid' };
    app.get(
      '/:appUuid/installation',
      withAsOf(app, 'app-installations', { config: admin, schema: { tags, description: "The company's installation of the app (installed false once uninstalled).", params, response: { 200: envelope(installationSchema) } } }, o),
      async (request) => {
        const row = await installationOf(deps.db, companyActor(request).tenant, request.params.appUuid.toLowerCase());
        if (!row) throw notFound('App installation', request.params.appUuid);
        return ok(toInstallation(row));
      },
    );
    historyRoute(app, 'app-installations', { ...o, config: admin, tags, url: '/:appUuid/installation/history' });
  };
