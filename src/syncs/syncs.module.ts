import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { startReactor, type ReactorRunner } from '../reactors/runner.js';
import type { RecordsService } from '../records/records.service.js';
import { syncsReactor } from './syncs.reactor.js';
import { syncsRoutes } from './syncs.routes.js';
import { makeSyncsService } from './syncs.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The sync reactor of this app (tests stop and start it). */
    syncRuntime: { start(): void; stop(): Promise<void> };
  }
}

/**
 * Syncs (issue 6): the routes under /api/v2/sync and the sync reactor (started on ready when
 * REACTORS_ENABLED), which writes through the app's records service (`records`).
 */
export async function registerSyncs(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; records: RecordsService }) {
  const { db, store, config, records } = deps;
  const syncs = makeSyncsService({ db, store });
  await app.register(syncsRoutes({ syncs }), { prefix: '/api/v2/sync' });

  let runner: ReactorRunner | undefined;
  const runtime = {
    start() {
      runner ??= startReactor(syncsReactor({ db, store, records, log: app.log }), { db, store, log: app.log });
    },
    async stop() {
      const r = runner;
      runner = undefined;
      await r?.stop();
    },
  };
  app.decorate('syncRuntime', runtime);
  if (config.REACTORS_ENABLED) app.addHook('onReady', async () => runtime.start());
  app.addHook('onClose', async () => runtime.stop());
}
