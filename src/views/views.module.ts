import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { viewsRoutes } from './views.routes.js';
import { makeViewsService } from './views.service.js';

/** Views (issue 21): saved ways to look at an object's records, under /api/v2/views. */
export async function registerViews(app: FastifyInstance, deps: { db: Db; store: EventStore }) {
  const views = makeViewsService(deps);
  await app.register(viewsRoutes({ views }), { prefix: '/api/v2/views' });
  return { views };
}
