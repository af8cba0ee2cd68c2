import type { FastifyInstance } from 'fastify';
import type { CompaniesService } from '../companies/companies.service.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { partnersRoutes } from './partners.routes.js';

/** Partners (issue 3): `/api/v2/partners`, managed companies. `companies`: the app's companies service. */
export async function registerPartners(app: FastifyInstance, deps: { db: Db; store: EventStore; companies: CompaniesService }) {
  const { db, store, companies } = deps;
  await app.register(partnersRoutes({ db, store, companies }), { prefix: '/api/v2/partners' });
}
