import type { FastifyInstance } from 'fastify';
import type { CompaniesService } from '../companies/companies.service.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { CompanyDataCopies } from '../sandboxes/company-data-copy.js';
import { partnersRoutes } from './partners.routes.js';

/** Partners (issue 3): `/api/v2/partners`, managed companies. `companies`: the app's companies service; `dataCopies`: the copies' data (issue 36). */
export async function registerPartners(app: FastifyInstance, deps: { db: Db; store: EventStore; companies: CompaniesService; dataCopies: CompanyDataCopies }) {
  const { db, store, companies, dataCopies } = deps;
  await app.register(partnersRoutes({ db, store, companies, dataCopies }), { prefix: '/api/v2/partners' });
}
