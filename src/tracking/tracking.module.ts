import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { BillingService } from '../billing/billing.service.js';
import { collectRoute } from './collect.route.js';
import { makeIngestQueue } from './ingest-queue.js';
import { MAX_EVENTS_PER_BATCH } from './tracking.schemas.js';
import { trackingRoutes } from './tracking.routes.js';
import { makeTrackingService } from './tracking.service.js';

const SWEEP_MS = 3600_000;

/**
 * Visitor tracking (issue 40): `/api/v2/tracking`. The roll-up into daily counts runs every
 * TRACKING_ROLLUP_MS, the retention sweep hourly; both stop on close.
 */
export async function registerTracking(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; billing: Pick<BillingService, 'gate'> }) {
  const { config, db, store } = deps;
  const queue = makeIngestQueue({ db, maxPending: config.TRACKING_MAX_PENDING, flushes: config.TRACKING_FLUSHES, flushEvents: config.TRACKING_FLUSH_EVENTS, maxEventsPerBatch: MAX_EVENTS_PER_BATCH });
  const tracking = makeTrackingService({ db, store, queue, retentionDays: config.TRACKING_RETENTION_DAYS });
  await app.register(trackingRoutes({ tracking }), { prefix: '/api/v2/tracking' });
  await app.register(collectRoute({ tracking, queue, billing: deps.billing, bodyLimit: config.TRACKING_BODY_LIMIT_BYTES }), { prefix: '/api/v2/tracking' });

  const timers: NodeJS.Timeout[] = [];
  let running: Promise<unknown> = Promise.resolve();
  const run = (work: () => Promise<unknown>) => {
    running = running.then(work).catch((err: unknown) => app.log.warn({ err }, 'tracking roll-up failed'));
  };
  app.addHook('onReady', async () => {
    if (config.TRACKING_ROLLUP_MS <= 0) return;
    run(() => tracking.sweep(Date.now()));
    timers.push(setInterval(() => run(() => tracking.rollUp()), config.TRACKING_ROLLUP_MS).unref());
    timers.push(setInterval(() => run(() => tracking.sweep(Date.now())), SWEEP_MS).unref());
  });
  app.addHook('onClose', async () => {
    for (const t of timers) clearInterval(t);
    await running;
  });
  return { tracking };
}
