import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/db.js';
import type { EventStore } from '../../event-store/port.js';
import type { UrlGuard } from '../../outbound/index.js';
import type { RecordsService } from '../../records/records.service.js';
import type { RecordReads } from '../../records/records.reads.js';
import type { AppsService } from '../apps.service.js';
import type { RuntimeService } from '../runtime.service.js';
import { secretBoxFrom } from '../secret-box.js';
import { makeDeploysService } from './deploys.service.js';
import { functionsRoutes } from './functions.routes.js';
import { makeFunctionsService } from './functions.service.js';
import { makeJobsService, startJobRunner } from './jobs.service.js';
import { makeLimits } from './limits.js';
import { makeRuntimeLogStreams } from './runtime-logs.stream.js';
import { makeSandbox } from './sandbox.pool.js';

export { activeRuntimeLogStreams } from './runtime-logs.stream.js';

/**
 * App functions (issue 35): deploys, invocations in the QuickJS sandbox, jobs and runtime logs
 * (docs/apps.md, "Functions"). The apps, runtime, records and reads services are handed over by
 * src/app.ts. The job runner runs with the reactors (REACTORS_ENABLED).
 */
export async function registerAppFunctions(
  app: FastifyInstance,
  deps: { config: Config; db: Db; store: EventStore; guard: UrlGuard; apps: AppsService; runtime: RuntimeService; records: RecordsService; reads: RecordReads },
) {
  const { config: c, db, store, apps } = deps;
  const sandbox = makeSandbox({ workers: c.APPS_FUNCTION_WORKERS, heapBytes: c.APPS_FUNCTION_WORKER_HEAP_MB * 1024 * 1024 });
  const limits = makeLimits(c);
  const deploys = makeDeploysService({ db, store, apps, sandbox, limits, maxBytes: c.APPS_DEPLOY_MAX_BYTES });
  const host = { db, records: deps.records, reads: deps.reads, runtime: deps.runtime, box: secretBoxFrom(c), guard: deps.guard, fetchTimeoutMs: c.WEBHOOK_TIMEOUT_MS };
  const functions = makeFunctionsService({ db, apps, sandbox, limits, host });
  const jobs = makeJobsService({ db, store, apps, functions, maxTimeoutMs: c.APPS_FUNCTION_WALL_MS, leaseMarginMs: c.APPS_JOBS_LEASE_MARGIN_MS });
  const streams = makeRuntimeLogStreams({ db, pollMs: c.APPS_LOGS_POLL_MS, maxMs: c.APPS_LOGS_STREAM_MAX_MS });
  await app.register(functionsRoutes({ db, apps, deploys, functions, jobs, streams, deployBodyLimit: c.APPS_DEPLOY_MAX_BYTES * 2 + 64 * 1024 }), { prefix: '/api/v2/apps' });

  let runner: ReturnType<typeof startJobRunner> | undefined;
  if (c.REACTORS_ENABLED) app.addHook('onReady', async () => void (runner = startJobRunner({ jobs, pollMs: c.APPS_JOBS_POLL_MS, concurrency: c.APPS_JOBS_CONCURRENCY, log: app.log })));
  app.addHook('preClose', async () => streams.endAll());
  app.addHook('onClose', async () => {
    await runner?.stop();
    await sandbox.close();
  });
  return { functions, jobs, deploys };
}
