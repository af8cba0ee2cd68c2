import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { httpRequestDuration } from './metrics.js';
import { metricsRoutes } from './metrics.routes.js';

/**
 * Metrics (issue 21 item 6): every response is timed by method, route pattern and status; with
 * METRICS_TOKEN set, `GET /metrics` serves the Prometheus text to whoever sends that token.
 * Without it the route does not exist (404).
 */
export async function registerMetrics(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore }) {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  const token = deps.config.METRICS_TOKEN;
  if (token) await app.register(metricsRoutes({ db: deps.db, token, lagFromLog: deps.store.name !== 'eventstoredb' }));
}
