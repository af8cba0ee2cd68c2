import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { Mailer } from '../mail/mailer.js';
import { registerBillingEdge } from './billing.edge.js';
import { billingRoutes } from './billing.routes.js';
import { makeBillingService } from './billing.service.js';

/**
 * Billing status (issue 40): `/api/v2/billing`, and the edge hook that enforces it on every route.
 * Registered before the other features, so that its hooks see every route they add.
 */
export async function registerBilling(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; mailer: Mailer }) {
  const { config, db, store, mailer } = deps;
  const billing = makeBillingService({ db, store, mailer, appUrl: config.APP_URL, setupTtlMs: config.BILLING_SETUP_TTL_MS, checkoutUrl: config.BILLING_CHECKOUT_URL, cacheMs: config.BILLING_CACHE_MS });
  registerBillingEdge(app, billing);
  await app.register(billingRoutes({ billing, hookSecret: config.BILLING_WEBHOOK_SECRET }), { prefix: '/api/v2/billing' });
  return { billing };
}
