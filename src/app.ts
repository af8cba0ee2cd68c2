import { timeOrderedUuid } from './db/time-ordered-uuid.js';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import type { EventStore } from './event-store/port.js';
import { frameworkError, registerErrorHandling } from './http/error-handler.js';
import { clientError } from './http/client-error.js';
import { registerJsonBody } from './http/json-body.js';
import { requestLogFields } from './http/log-redaction.js';
import { logActorMixin } from './http/log-actor.js';
import { registerStringGuard } from './http/string-guard.js';
import { makeRouteMethods, registerNotFound } from './http/method-not-allowed.js';
import { MAX_PATH_PARAM_LENGTH } from './http/path-params.js';
import { registerOpenApi } from './http/openapi.js';
import { registerUploadBodies } from './http/upload-body.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerRateLimit } from './http/rate-limit.js';
import { registerRequestSignal } from './http/request-signal.js';
import { devRoutes } from './dev/dev.routes.js';
import { registerAuth } from './auth/authorize.js';
import { affectsActors, configureActorCache, forgetActors } from './auth/actor-cache.js';
import { afterAppend } from './event-store/after-append.js';
import { configureCmsCache, forgetCmsAfter } from './webpages/cms-cache.js';
import { forgetAuditActors, registerAuditFields } from './http/audit-fields.js';
import { configureIndexCache, configureObjectStore } from '../read-models/record-index/index.js';
import { affectsSchema, configureObjectCache, forgetObjects } from './records/object-cache.js';
import { registerMail } from './mail/mail.module.js';
import { registerAccounts } from './auth/auth.module.js';
import { registerCompanies } from './companies/companies.module.js';
import { registerMembers } from './members/members.module.js';
import { registerTeams } from './teams/teams.module.js';
import { registerPartners } from './partners/partners.module.js';
import { registerSchema } from './schema/schema.module.js';
import { registerWebhooks } from './webhooks/webhooks.module.js';
import { makeUrlGuard } from './outbound/index.js';
import { registerSyncs } from './syncs/syncs.module.js';
import { registerViews } from './views/views.module.js';
import { registerCalendars } from './calendars/calendars.module.js';
import { registerMetrics } from './metrics/metrics.module.js';
import { recordExistsIn, registerRecords } from './records/records.module.js';
import { registerFiles } from './files/files.module.js';
import { registerOps } from './ops/ops.module.js';
import { registerWebpages } from './webpages/webpages.module.js';
import { appModuleCatalogue, registerApps } from './apps/apps.module.js';
import { registerAppFunctions } from './apps/functions/functions.module.js';
import { registerConsole } from './console/console.module.js';
import { registerForms } from './forms/forms.module.js';
import { registerEvents } from './events/events.module.js';
import { registerNotifications } from './notifications/notifications.module.js';
import { registerHistory } from './history/history.module.js';
import { registerCmsTransfer } from './cms-transfer/cms-transfer.module.js';
import { registerCmsExport } from './cms-export/cms-export.module.js';
import { registerBilling } from './billing/billing.module.js';
import { registerTracking } from './tracking/tracking.module.js';
import { registerFeeds } from './feeds/feeds.module.js';
import { registerContent } from './content/content.module.js';
import { registerSandboxes } from './sandboxes/sandboxes.module.js';
import { affectsForms, configureFormCache, forgetForms, forgetFormsHere } from './forms/form-cache.js';

declare module 'fastify' {
  interface FastifyInstance {
    platformConfig: Config;
  }
}

export interface Platform {
  config: Config;
  db: Db;
  store: EventStore;
  /** Where the log goes (default: stdout); tests capture it to check what is never logged. */
  logStream?: { write(line: string): void };
}

const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** Builds the HTTP app apart from `listen`, so tests drive it with `inject` or real HTTP. */
export async function buildApp(base: Platform): Promise<FastifyInstance> {
  const { config } = base;
  configureActorCache(config.AUTH_CACHE_MS);
  configureObjectCache(config.SCHEMA_CACHE_MS);
  configureCmsCache(config.SCHEMA_CACHE_MS);
  configureFormCache(config.SCHEMA_CACHE_MS);
  configureIndexCache(config.INDEX_CACHE_ENTRIES);
  configureObjectStore(config.INDEX_STORE_CELLS);
  // Once an append has committed, the caches forget what it may have changed.
  const platform: Platform = {
    ...base,
    // Awaited: other processes are told (src/cache/cache-bus.ts) before the client hears.
    store: afterAppend(base.store, async (streamId, tenant) => {
      if (affectsActors(streamId)) {
        forgetAuditActors();
        await forgetActors();
      }
      if (affectsSchema(streamId)) {
        // The schema notification tells the other processes to forget the forms' relations too.
        forgetFormsHere(tenant);
        await forgetObjects(tenant);
      }
      if (affectsForms(streamId)) await forgetForms(tenant);
      await forgetCmsAfter(streamId, tenant);
    }),
  };
  // Every routed path and its methods: the 405s of the router and of Node's parser.
  const routeMethods = makeRouteMethods();
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-platform-sandbox-uuid"]'],
      serializers: { req: requestLogFields },
      mixin: logActorMixin,
      ...(base.logStream ? { stream: base.logStream } : {}),
    },
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : timeOrderedUuid();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError(routeMethods),
    // A request that reaches a kept-alive connection while the server shuts down is answered,
    // not refused: to its client it was already in flight (docs/operations.md).
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>();

  app.decorate('platformConfig', config);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerErrorHandling(app);
  registerRequestSignal(app);
  registerNotFound(app, routeMethods);
  registerJsonBody(app);
  // Before idempotency and every route: nothing unstorable is kept or reaches a handler.
  registerStringGuard(app);
  await registerRateLimit(app, { enabled: config.RATE_LIMIT_ENABLED, max: config.RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS });
  await registerOpenApi(app);
  registerIdempotency(app, platform.db, config.IDEMPOTENCY_TTL_MS);

  registerAuth(app, {
    db: platform.db,
    superAdminEmails: config.SUPER_ADMIN_EMAILS,
    // A path of the records' /{objectName}/... shape that no route takes: 401 without a token, like
    // the routes there; signed in, the same 404 for any name (docs/http-edge.md).
    unrouted: (request) => (routeMethods.inObjectSpace(request.url.split('?')[0] ?? '/') ? 'signed-in' : undefined),
  });
  // After authentication: an upload route refuses a body that is not multipart with 415.
  registerUploadBodies(app);
  const { db, store } = platform;
  registerAuditFields(app, db);
  await registerHistory(app, { db, store });
  // Right after authentication, before every route: X-Platform-Sandbox-Uuid moves the request's tenant.
  const { dataCopies } = await registerSandboxes(app, { db, store });
  // Each feature registers itself (its `*.module.ts`); a service one feature needs of another is
  // handed over here, never imported (test/architecture.test.ts).
  const mailer = registerMail(app, config);
  const { billing } = await registerBilling(app, { config, db, store, mailer });
  await registerAccounts(app, { config, db, store, mailer });
  const { companies } = await registerCompanies(app, { db, store });
  await registerMembers(app, { db, store, companies });
  await registerTeams(app, { db, store });
  await registerPartners(app, { db, store, companies, dataCopies });
  await app.register(devRoutes({ db, mailer }), { prefix: '/api/v2/dev' });
  await registerSchema(app, { db, store, recordExists: recordExistsIn(db) });
  // One address guard for every outbound request (webhooks, apps, OAuth: src/outbound/).
  const guard = makeUrlGuard({ allowedHosts: config.WEBHOOK_ALLOWED_HOSTS });
  const webhookRuntime = await registerWebhooks(app, { config, db, store, guard });
  const { records, reads } = await registerRecords(app, { db, store });
  await registerSyncs(app, { config, db, store, records });
  await registerViews(app, { db, store });
  await registerCalendars(app, { db, store });
  const { files, storage } = await registerFiles(app, { config, db, store, records });
  await registerOps(app, { config, db });
  await registerMetrics(app, { config, db, store });
  const cms = await registerWebpages(app, { config, db, store, appModules: appModuleCatalogue(db) });
  const { apps, runtime } = await registerApps(app, { config, db, store, guard, webhookRuntime, storage });
  await registerAppFunctions(app, { config, db, store, guard, apps, runtime, records, reads });
  await registerConsole(app);
  await registerForms(app, { config, db, store, records, files });
  const { feeds } = await registerEvents(app, { config, db });
  await registerNotifications(app, { config, db, store, feeds });
  await registerCmsTransfer(app, { db, store });
  await registerCmsExport(app, { config, db, cms });
  await registerTracking(app, { config, db, store, billing });
  await registerFeeds(app, { config, db, store });
  await registerContent(app, { config, db });
  return app;
}
