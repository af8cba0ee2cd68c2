import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { EventFeeds } from '../events/event-feed.js';
import { startReactor, type ReactorRunner } from '../reactors/runner.js';
import { notificationsReactor } from './notifications.reactor.js';
import { notificationsRoutes } from './notifications.routes.js';
import { makeNotificationsService } from './notifications.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The notifications reactor of this app (tests stop and start it). */
    notificationRuntime: { start(): void; stop(): Promise<void> };
  }
}

/**
 * The notifications inbox (issue 39): routes under /api/v2/notifications, the live inbox over the
 * event feed (`feeds`, from registerEvents), and the reactor that makes notifications (started on
 * ready when REACTORS_ENABLED).
 */
export async function registerNotifications(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; feeds: EventFeeds }) {
  const { db, store, config, feeds } = deps;
  const notifications = makeNotificationsService({ db, store });
  await app.register(notificationsRoutes({ notifications, feeds }), { prefix: '/api/v2/notifications' });

  let runner: ReactorRunner | undefined;
  const runtime = {
    start() {
      runner ??= startReactor(notificationsReactor({ db, notifications, log: app.log }), { db, store, log: app.log });
    },
    async stop() {
      const r = runner;
      runner = undefined;
      await r?.stop();
    },
  };
  app.decorate('notificationRuntime', runtime);
  if (config.REACTORS_ENABLED) app.addHook('onReady', async () => runtime.start());
  app.addHook('onClose', async () => runtime.stop());
  return { notifications };
}
