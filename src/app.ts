import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import type { EventStore } from './event-store/port.js';
import { registerErrorHandling } from './http/error-handler.js';
import { registerNotFound } from './http/method-not-allowed.js';
import { registerOpenApi } from './http/openapi.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerRateLimit } from './http/rate-limit.js';
import { devRoutes } from './dev/dev.routes.js';
import { registerAuth } from './auth/authorize.js';
import { affectsActors, configureActorCache, forgetActors } from './auth/actor-cache.js';
import { afterAppend } from './event-store/after-append.js';
import { configureIndexCache } from './records/index-cache.js';
import { affectsSchema, configureObjectCache, forgetObjects } from './records/object-cache.js';
import { registerIdentity } from './identity.js';
import { registerSchema } from './schema/schema.module.js';
import { registerWebhooks } from './webhooks/webhooks.module.js';
import { registerSyncs } from './syncs/syncs.module.js';
import { recordExistsIn, registerRecords } from './records/records.module.js';
import { registerWebpages } from './webpages/webpages.module.js';

declare module 'fastify' {
  interface FastifyInstance {
    platformConfig: Config;
  }
}

export interface Platform {
  config: Config;
  db: Db;
  store: EventStore;
}

const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** Builds the HTTP app apart from `listen`, so tests drive it with `inject` or real HTTP. */
export async function buildApp(base: Platform): Promise<FastifyInstance> {
  const { config } = base;
  configureActorCache(config.AUTH_CACHE_MS);
  configureObjectCache(config.SCHEMA_CACHE_MS);
  configureIndexCache(config.INDEX_CACHE_ENTRIES);
  // Once an append has committed, the caches forget what it may have changed.
  const platform: Platform = {
    ...base,
    store: afterAppend(base.store, (streamId, tenant) => {
      if (affectsActors(streamId)) forgetActors();
      if (affectsSchema(streamId)) forgetObjects(tenant);
    }),
  };
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-platform-sandbox-uuid"]'],
    },
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();

  app.decorate('platformConfig', config);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandling(app);
  registerNotFound(app);
  await registerRateLimit(app, { enabled: config.RATE_LIMIT_ENABLED, max: config.RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS });
  await registerOpenApi(app);
  registerIdempotency(app, platform.db, config.IDEMPOTENCY_TTL_MS);

  registerAuth(app, { db: platform.db, superAdminEmails: config.SUPER_ADMIN_EMAILS });
  const { mailer } = await registerIdentity(app, { config, db: platform.db, store: platform.store });
  await app.register(devRoutes({ db: platform.db, mailer }), { prefix: '/api/v2/dev' });
  await registerSchema(app, { db: platform.db, store: platform.store, recordExists: recordExistsIn(platform.db) });
  await registerWebhooks(app, { config, db: platform.db, store: platform.store });
  await registerSyncs(app, { config, db: platform.db, store: platform.store });
  await registerRecords(app, { db: platform.db, store: platform.store });
  await registerWebpages(app, { config, db: platform.db, store: platform.store });
  return app;
}
