import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { companiesRoutes } from './companies.routes.js';
import { makeCompaniesService, type CompaniesService } from './companies.service.js';
import { publicSettingsRoutes } from './public-settings.routes.js';

/**
 * Companies (issue 3): `/api/v2/companies` and the public settings. Returns the companies service,
 * which the app hands to members and partners.
 */
export async function registerCompanies(app: FastifyInstance, deps: { db: Db; store: EventStore }): Promise<{ companies: CompaniesService }> {
  const { db, store } = deps;
  const companies = makeCompaniesService({ db, store });
  await app.register(companiesRoutes({ companies }), { prefix: '/api/v2/companies' });
  await app.register(publicSettingsRoutes({ db, companies }), { prefix: '/api/v2' });
  return { companies };
}
