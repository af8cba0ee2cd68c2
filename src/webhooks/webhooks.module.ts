import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { startReactor, type ReactorRunner } from '../reactors/runner.js';
import { startDispatcher, type Dispatcher } from './dispatcher.js';
import type { UrlGuard } from '../outbound/index.js';
import { deliveriesRoutes } from './deliveries.routes.js';
import { makeDeliveriesService } from './deliveries.service.js';
import { makeTestPayloads, type FindRecord } from './test-payloads.js';
import { webhookTestRoutes } from './test.routes.js';
import { webhooksRoutes, type OwnerOf } from './webhooks.routes.js';
import { makeWebhooksService, type WebhooksService } from './webhooks.service.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { makeDeliveryRules } from './delivery-rules.js';
import { webhooksReactor, type DeliveryRules } from './webhooks.reactor.js';

/** What app webhooks (src/apps/app-webhooks.routes.ts) take of the webhook resource: its owner hook and shapes. */
export type { OwnerOf } from './webhooks.routes.js';
export { createWebhookBodySchema, toWebhook, webhookSchema } from './webhooks.schemas.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The webhook reactor and dispatcher of this app (tests stop and start them). */
    webhookRuntime: WebhookRuntime;
  }
}

export interface WebhookRuntime {
  rules: DeliveryRules;
  /** Wakes the dispatcher (no-op while reactors are off). */
  wake(): void;
  /** Starts the delivery reactor and the dispatcher (done on app ready when REACTORS_ENABLED). */
  start(): void;
  /** Stops both; in-flight requests are aborted and their rows handed back. */
  stop(): Promise<void>;
  /** The webhook routes (CRUD, formats, topics, tests) for another owner: app webhooks register them under their prefix. */
  routesFor(ownerOf: OwnerOf): FastifyPluginAsyncZod;
  /** Creates a webhook for an owner (POST /webhooks/apps/{appUuid}). */
  webhooks: WebhooksService;
}

/**
 * Webhooks (issue 6): the routes, the delivery reactor (log -> outbox, checkpointed) and the
 * dispatcher (outbox -> receivers). Both run in every API instance when REACTORS_ENABLED; the
 * checkpoint lock and `skip locked` claims keep instances from doing the same work twice.
 */
export async function registerWebhooks(
  app: FastifyInstance,
  deps: { config: Config; db: Db; store: EventStore; guard: UrlGuard; rules?: DeliveryRules; findRecord?: FindRecord },
): Promise<WebhookRuntime> {
  const { config, db, store, guard } = deps;
  const live = makeDeliveryRules({ db, log: app.log });
  const rules = deps.rules ?? live;
  let dispatcher: Dispatcher | undefined;
  let runner: ReactorRunner | undefined;

  const webhooks = makeWebhooksService({ db, store, guard });
  const tests = makeTestPayloads({ db, store, rules, findRecord: deps.findRecord ?? live.findRecord });
  const runtime: WebhookRuntime = {
    webhooks,
    routesFor: (ownerOf) => async (scope) => {
      await scope.register(webhooksRoutes({ db, webhooks, ownerOf }));
      await scope.register(webhookTestRoutes({ db, webhooks, tests, guard, timeoutMs: config.WEBHOOK_TIMEOUT_MS, ownerOf }));
    },
    rules,
    wake: () => dispatcher?.wake(),
    start() {
      if (dispatcher) return;
      dispatcher = startDispatcher({
        db,
        guard,
        log: app.log,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        concurrency: config.WEBHOOK_CONCURRENCY,
        pollMs: config.WEBHOOK_POLL_MS,
        maxBackoffMs: config.WEBHOOK_MAX_BACKOFF_MS,
        rateLimitMax: config.WEBHOOK_RATE_LIMIT_MAX,
        rateLimitWindowMs: config.WEBHOOK_RATE_LIMIT_WINDOW_MS,
      });
      runner = startReactor(webhooksReactor({ db, store, rules, onEnqueued: () => dispatcher?.wake() }), { db, store, log: app.log });
    },
    async stop() {
      const [r, d] = [runner, dispatcher];
      runner = undefined;
      dispatcher = undefined;
      await r?.stop();
      await d?.stop();
    },
  };

  const deliveries = makeDeliveriesService({ db, store, webhooks, rules, wake: runtime.wake, replayMax: config.WEBHOOK_REPLAY_MAX });
  await app.register(webhooksRoutes({ db, webhooks }), { prefix: '/api/v2/webhooks' });
  await app.register(deliveriesRoutes({ deliveries }), { prefix: '/api/v2/webhooks' });
  await app.register(webhookTestRoutes({ db, webhooks, tests, guard, timeoutMs: config.WEBHOOK_TIMEOUT_MS }), { prefix: '/api/v2/webhooks' });

  app.decorate('webhookRuntime', runtime);
  if (config.REACTORS_ENABLED) app.addHook('onReady', async () => runtime.start());
  app.addHook('onClose', async () => runtime.stop());
  return runtime;
}
