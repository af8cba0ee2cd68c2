import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { syncsRoutes } from './syncs.routes.js';
import { makeSyncsService } from './syncs.service.js';

/** Syncs (issue 6): the routes under /api/v2/sync. */
export async function registerSyncs(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore }) {
  const syncs = makeSyncsService({ db: deps.db, store: deps.store });
  await app.register(syncsRoutes({ syncs }), { prefix: '/api/v2/sync' });
}
