import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { cmsTransferRoutes } from './cms-transfer.routes.js';
import { makeCmsTransferService } from './cms-transfer.service.js';

/** The CMS v2 transfer (issue 37): routes under /api/v2/company/{companyUuid}/cms-transfer. */
export async function registerCmsTransfer(app: FastifyInstance, deps: { db: Db; store: EventStore }) {
  const transfers = makeCmsTransferService(deps);
  await app.register(cmsTransferRoutes({ transfers }), { prefix: '/api/v2/company' });
  return { transfers };
}
