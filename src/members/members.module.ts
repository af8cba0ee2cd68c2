import type { FastifyInstance } from 'fastify';
import type { CompaniesService } from '../companies/companies.service.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { membersRoutes } from './members.routes.js';
import { makeMembersService } from './members.service.js';

/** Members of a company (issue 3): `/api/v2/companies/{uuid}/users`. `companies`: the app's companies service. */
export async function registerMembers(app: FastifyInstance, deps: { db: Db; store: EventStore; companies: CompaniesService }) {
  const { db, store, companies } = deps;
  await app.register(membersRoutes({ members: makeMembersService({ db, store, companies }) }), { prefix: '/api/v2/companies' });
}
