import type { FastifyInstance } from 'fastify';
import { projections } from '../../projections/index.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { gateReactors } from '../reactors/runner.js';
import { sandboxReactorGate } from './reactor-gate.js';
import { registerSandboxHeader } from './sandbox-header.js';
import { sandboxesRoutes } from './sandboxes.routes.js';
import { makeSandboxesService } from './sandboxes.service.js';
import { makeCompanyDataCopies } from './company-data-copy.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The sandboxes of this app (tests wait for their clones). */
    sandboxes: ReturnType<typeof makeSandboxesService>;
    /** Partner copies' data (tests wait for them). */
    companyDataCopies: ReturnType<typeof makeCompanyDataCopies>;
  }
}

/**
 * Developer sandboxes (issue 36): the header X-Platform-Sandbox-Uuid (registered right after
 * authentication, before any route), the routes under /api/v2/developer-sandboxes, and the gate
 * that keeps reactors off a sandbox until its owner turns them on. Returns the service (its clone
 * engine is what a partner copy reuses: `dataCopies`).
 */
export async function registerSandboxes(app: FastifyInstance, deps: { db: Db; store: EventStore; clonePageSize?: number }) {
  const { db, store } = deps;
  registerSandboxHeader(app, db);
  gateReactors(db, sandboxReactorGate(db));
  const sandboxes = makeSandboxesService({ db, store, projections, log: app.log, pageSize: deps.clonePageSize });
  app.decorate('sandboxes', sandboxes);
  await app.register(sandboxesRoutes({ sandboxes }), { prefix: '/api/v2/developer-sandboxes' });
  const dataCopies = makeCompanyDataCopies({ db, store, projections, log: app.log, pageSize: deps.clonePageSize });
  app.decorate('companyDataCopies', dataCopies);
  app.addHook('onClose', async () => {
    await sandboxes.close();
    await dataCopies.close();
  });
  return { sandboxes, dataCopies };
}
