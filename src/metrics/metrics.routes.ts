import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { Db } from '../db/db.js';
import { metricsRegistry, reactorLagEvents, reactorLagSeconds } from './metrics.js';
import { reactorLags } from './reactor-lag.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether the request carries `Authorization: Bearer <token>` (compared in constant time). */
function carries(request: FastifyRequest, token: string) {
  const header = request.headers.authorization;
  const given = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  return timingSafeEqual(digest(given), digest(token));
}

const refused = () =>
  new DomainError('UNAUTHENTICATED', 'Metrics need the operator token', [
    { message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', type: 'GENERAL', correctionSuggestion: 'Send the operator token the server was started with (METRICS_TOKEN)' },
  ]);

/**
 * `GET /metrics`: the Prometheus text format, for operators holding METRICS_TOKEN (not a user
 * session: a scraper has none). Each scrape also reads every reactor's lag from its checkpoint.
 */
export const metricsRoutes = (deps: { db: Db; token: string; lagFromLog: boolean }): FastifyPluginAsync =>
  async (app) => {
    app.get('/metrics', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
      if (!carries(request, deps.token)) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw refused();
      }
      if (deps.lagFromLog) {
        reactorLagEvents.reset();
        reactorLagSeconds.reset();
        for (const lag of await reactorLags(deps.db)) {
          reactorLagEvents.set({ reactor: lag.reactor }, lag.events);
          reactorLagSeconds.set({ reactor: lag.reactor }, lag.seconds);
        }
      }
      reply.header('content-type', metricsRegistry.contentType);
      reply.header('cache-control', 'no-store');
      return metricsRegistry.metrics();
    });
  };
