import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { keepStatistics } from '../db/statistics.js';
import { projections } from '../../projections/index.js';
import { joinCacheBus } from '../cache/cache-bus.js';
import { forgetActorsHere, STALE_ACTORS } from '../auth/actor-cache.js';
import { forgetObjectsHere, STALE_SCHEMA } from '../records/object-cache.js';
import { forgetCmsFrom, STALE_CMS } from '../webpages/cms-cache.js';
import { forgetAuditActors } from '../http/audit-fields.js';
import { forgetFormsHere, STALE_FORMS } from '../forms/form-cache.js';
import { healthRoutes } from './health.routes.js';
import { isDraining } from './draining.js';

/**
 * What keeps a running server healthy apart from any feature: the health route, caches that other processes'
 * changes invalidate at once (src/cache/cache-bus.ts), and the read models' statistics
 * (src/db/statistics.ts).
 */
export async function registerOps(app: FastifyInstance, deps: { config: Config; db: Db }) {
  const { config, db } = deps;
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  await app.register(healthRoutes({ db, reactorsEnabled: config.REACTORS_ENABLED, closing: () => closing || isDraining() }), { prefix: '/api/v2/health' });
  let leave: (() => Promise<void>) | undefined;
  app.addHook('onReady', async () => {
    leave = await joinCacheBus(db, forgetStale);
  });
  app.addHook('onClose', async () => leave?.());
  if (config.STATISTICS_CHECK_MS > 0) {
    const tables = [...new Set(projections.flatMap((p) => p.tables))];
    let keeper: ReturnType<typeof keepStatistics> | undefined;
    app.addHook('onReady', async () => {
      keeper = keepStatistics(db, tables, {
        intervalMs: config.STATISTICS_CHECK_MS,
        statementTimeoutMs: config.MAINTENANCE_STATEMENT_TIMEOUT_MS,
        onError: (err) => app.log.warn({ err }, 'statistics check failed'),
      });
    });
    app.addHook('onClose', async () => keeper?.stop());
  }
}

/** Forgets here what another process said it changed. */
function forgetStale(what: string) {
  if (what === STALE_ACTORS) {
    forgetActorsHere();
    forgetAuditActors();
  }
  else if (what.startsWith(STALE_SCHEMA)) {
    forgetObjectsHere(what.slice(STALE_SCHEMA.length));
    forgetFormsHere(what.slice(STALE_SCHEMA.length));
  } else if (what.startsWith(STALE_FORMS)) forgetFormsHere(what.slice(STALE_FORMS.length));
  else if (what.startsWith(STALE_CMS)) forgetCmsFrom(what.slice(STALE_CMS.length));
}
