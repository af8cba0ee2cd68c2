import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { appsRoutes } from './apps.routes.js';
import { makeAppsService } from './apps.service.js';
import { secretBoxFrom } from './secret-box.js';
import { appBarsRoutes } from './app-bars.routes.js';
import { makeAppBarsService } from './app-bars.service.js';
import { runtimeRoutes } from './runtime.routes.js';
import { makeRuntimeService } from './runtime.service.js';
import type { UrlGuard } from '../outbound/index.js';
import type { WebhookRuntime } from '../webhooks/webhooks.module.js';
import { oauthRoutes } from './oauth.routes.js';
import { makeOAuthService } from './oauth.service.js';
import { appWebhooksRoutes } from './app-webhooks.routes.js';
import { appTokenRoutes } from './app-token.routes.js';
import { makeAppTokenService } from './app-token.service.js';
import { appExtrasRoutes } from './app-extras.routes.js';
import { makeAppExtrasService } from './app-extras.service.js';
import { runtimeBuildReactor } from './runtime-build.reactor.js';
import { startReactor, type ReactorRunner } from '../reactors/runner.js';
import type { ObjectStorage } from '../files/storage/storage.port.js';

/** The catalogue of the installed apps' CMS modules, handed to the webpages feature in src/app.ts. */
export { appModuleCatalogue } from './app-modules.js';

/** Apps (issue 19): the marketplace, review, installs (docs/apps.md). */
export async function registerApps(app: FastifyInstance, deps: { config: Config; db: Db; store: EventStore; guard: UrlGuard; webhookRuntime: WebhookRuntime; storage: ObjectStorage }) {
  const { config, db, store, guard } = deps;
  const box = secretBoxFrom(config);
  const apps = makeAppsService({ db, store, box, graceMs: config.APPS_ROTATION_GRACE_MS });
  const runtime = makeRuntimeService({ db, apps, box, guard, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  await app.register(appsRoutes({ db, apps }), { prefix: '/api/v2/apps' });
  await app.register(runtimeRoutes({ runtime }), { prefix: '/api/v2/apps' });
  const bars = makeAppBarsService({ db, runtime, ttlMs: config.APPS_IFRAME_TOKEN_TTL_MS });
  await app.register(appBarsRoutes({ bars }), { prefix: '/api/v2/app-bars' });
  const oauth = makeOAuthService({ db, apps, box, guard, appUrl: config.APP_URL, flowTtlMs: config.APPS_OAUTH_FLOW_TTL_MS, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  await app.register(oauthRoutes({ oauth }), { prefix: '/api/v2/apps' });
  await app.register(appWebhooksRoutes({ apps, webhookRuntime: deps.webhookRuntime }));
  await app.register(appTokenRoutes({ tokens: makeAppTokenService({ db, ttlMs: config.APPS_TOKEN_TTL_MS }) }), { prefix: '/api/v2/apps' });
  const extras = makeAppExtrasService({ db, apps, storage: deps.storage, maxPackageBytes: config.APPS_PACKAGE_MAX_BYTES });
  await app.register(appExtrasRoutes({ extras, maxPackageBytes: config.APPS_PACKAGE_MAX_BYTES }), { prefix: '/api/v2/apps' });
  // The rebuild of migrate-v2: a reactor of the log, started like the others.
  let builder: ReactorRunner | undefined;
  if (config.REACTORS_ENABLED) app.addHook('onReady', async () => void (builder ??= startReactor(runtimeBuildReactor({ db, apps, storage: deps.storage }), { db, store, log: app.log })));
  app.addHook('onClose', async () => builder?.stop());
  return { apps, runtime };
}
