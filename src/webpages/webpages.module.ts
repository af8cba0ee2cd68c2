import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { ModuleCatalogue } from '../../aggregates/page/page.modules.js';
import { environmentsRoutes } from './environments.routes.js';
import { makeEnvironmentsService } from './environments.service.js';
import { modulesRoutes } from './modules.routes.js';
import { makeModulesService } from './modules.service.js';
import { translationsRoutes } from './translations.routes.js';
import { makeTranslationsService } from './translations.service.js';
import { templatesRoutes } from './templates.routes.js';
import { makeTemplatesService } from './templates.service.js';
import { startPageScheduler, type PageScheduler } from './page-scheduler.js';
import { makePageHistory } from './pages.history.js';
import { pagesRoutes } from './pages.routes.js';
import { makePagesService } from './pages.service.js';
import { previewsRoutes } from './previews.routes.js';
import { publicMenusRoutes } from './public-menus.routes.js';
import { publicPagesRoutes } from './public.routes.js';
import { webMenusRoutes } from './web-menus.routes.js';
import { makeWebMenusService } from './web-menus.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The page scheduler of this app (tests stop and start it to play a restart). */
    pageScheduler: { start(): void; stop(): Promise<void> };
  }
}

/**
 * Webpages and the CMS (issue 16): routes under /api/v2 and the page scheduler (started on ready when
 * REACTORS_ENABLED). Returns the CMS services (the site import writes through them).
 */
export async function registerWebpages(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; appModules?: (tenant: string) => Promise<ModuleCatalogue> }) {
  const { db, store, config } = deps;
  const passwordLogN = config.PASSWORD_SCRYPT_LOG_N;
  const modules = makeModulesService({ db, store, appModules: deps.appModules });
  const pages = makePagesService({ db, store, passwordLogN, catalogue: modules.catalogue });
  const history = makePageHistory({ db, pages });
  const environments = makeEnvironmentsService({ db, store });
  const translations = makeTranslationsService({ db, store, pages });
  const menus = makeWebMenusService({ db, store });
  await app.register(pagesRoutes({ pages, history }), { prefix: '/api/v2' });
  await app.register(environmentsRoutes({ environments }), { prefix: '/api/v2' });
  await app.register(modulesRoutes({ modules }), { prefix: '/api/v2' });
  await app.register(translationsRoutes({ translations }), { prefix: '/api/v2' });
  await app.register(templatesRoutes({ templates: makeTemplatesService({ db, pages, modules }) }), { prefix: '/api/v2' });
  await app.register(publicPagesRoutes({ db, passwordLogN }), { prefix: '/api/v2' });
  await app.register(webMenusRoutes({ menus }), { prefix: '/api/v2' });
  await app.register(publicMenusRoutes({ db }), { prefix: '/api/v2' });
  await app.register(previewsRoutes({ db, passwordLogN }), { prefix: '/api/v2' });

  let scheduler: PageScheduler | undefined;
  const runtime = {
    start() {
      scheduler ??= startPageScheduler({ db, pages, log: app.log, intervalMs: config.PAGE_SCHEDULER_INTERVAL_MS });
    },
    async stop() {
      const s = scheduler;
      scheduler = undefined;
      await s?.stop();
    },
  };
  app.decorate('pageScheduler', runtime);
  if (config.REACTORS_ENABLED) app.addHook('onReady', async () => runtime.start());
  app.addHook('onClose', async () => runtime.stop());
  return { environments, modules, pages, menus, translations };
}
