import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { signedDownloadRoutes } from './signed-download.routes.js';
import { openStorage } from './storage/open-storage.js';

/** Files (issue 17): object storage on a port, the routes under /api/v2/files and the webpage uploads. */
export async function registerFiles(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore }) {
  const storage = openStorage(deps.config);
  await app.register(signedDownloadRoutes(storage), { prefix: '/api/v2/files/signed' });
}
