import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { contentRoutes } from './content.routes.js';

/** The content API (issue 37, spec 1.19): public and read-only, under /api/v2/content/{site} (docs/content-api.md). */
export async function registerContent(app: FastifyInstance, deps: { config: Config; db: Db }) {
  const { config, db } = deps;
  await app.register(contentRoutes({ db, passwordLogN: config.PASSWORD_SCRYPT_LOG_N, rateLimitMax: config.CONTENT_RATE_LIMIT_MAX }), { prefix: '/api/v2/content' });
}
