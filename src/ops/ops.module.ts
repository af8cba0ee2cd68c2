import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { keepStatistics } from '../db/statistics.js';
import { projections } from '../../projections/index.js';

/**
 * What keeps a running server healthy apart from any feature: the read models' statistics
 * (src/db/statistics.ts).
 */
export async function registerOps(app: FastifyInstance, deps: { config: Config; db: Db }) {
  const { config, db } = deps;
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
