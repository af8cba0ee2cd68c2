import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../../auth/actor.js';
import { envelope, listEnvelope, ok, page } from '../../http/envelope.js';
import { optionalBody } from '../../http/optional-body.js';
import { paginationBody, pageOffset } from '../../http/pagination.js';
import { limitQueryField, pageQueryField } from '../../../aggregates/kernel/paging.js';
import { listRuntimeLogs } from '../../../read-models/app-functions.queries.js';
import type { Db } from '../../db/db.js';
import type { AppsService } from '../apps.service.js';
import type { DeploysService } from './deploys.service.js';
import type { FunctionsService } from './functions.service.js';
import type { JobsService } from './jobs.service.js';
import { logLine, type RuntimeLogStreams } from './runtime-logs.stream.js';
import { deployBody, deploySchema, deployWithCodeSchema, invocationSchema, invokeBody, jobBody, jobSchema, runtimeLogSchema, toDeploy, toJob } from './functions.schemas.js';

const appParams = z.object({ appUuid: z.uuid() });
const deployParams = appParams.extend({ deployUuid: z.uuid() });
const functionParams = appParams.extend({ name: z.string().min(1).max(64) });
const jobParams = appParams.extend({ jobId: z.uuid() });
const creator = { auth: { scopes: ['apps:write'] as const } };
const runner = { auth: { scopes: ['apps:functions'] as const } };

/** Deploys, invocations, jobs and runtime logs of app functions (docs/apps.md, "Functions"), under /api/v2/apps. */
export const functionsRoutes = (deps: { db: Db; apps: AppsService; deploys: DeploysService; functions: FunctionsService; jobs: JobsService; streams: RuntimeLogStreams; deployBodyLimit: number }): FastifyPluginAsyncZod =>
  async (app) => {
    const { deploys, functions, jobs } = deps;
    const tenantOf = (request: Parameters<typeof companyActor>[0]) => companyActor(request).tenant;
    const tags = ['app functions'];

    app.post(
      '/:appUuid/deploys',
      { config: creator, bodyLimit: deps.deployBodyLimit, schema: { tags, description: 'Deploys a build (the creator company): manifest and CommonJS bundle, checked in the sandbox; it becomes the active deploy.', params: appParams, body: deployBody, response: { 201: envelope(deploySchema) } } },
      async (request, reply) => {
        const row = await deploys.create(commandContext(request), request.params.appUuid, request.body);
        reply.code(201);
        return ok(toDeploy(row), 'deployed');
      },
    );

    app.post('/:appUuid/deploys/index', { config: creator, schema: { tags, description: 'The deploys of the app, newest first (the history).', params: appParams, body: paginationBody, response: { 200: listEnvelope(deploySchema) } } }, async (request) => {
      const { limit, page: n } = request.body;
      const { rows, total } = await deploys.list(tenantOf(request), request.params.appUuid, { limit, offset: pageOffset(n, limit) });
      return page(rows.map(toDeploy), total, n, limit);
    });

    app.get('/:appUuid/deploys/:deployUuid', { config: creator, schema: { tags, description: 'One deploy, its bundle included.', params: deployParams, response: { 200: envelope(deployWithCodeSchema) } } }, async (request) => {
      const row = await deploys.one(tenantOf(request), request.params.appUuid, request.params.deployUuid);
      return ok({ ...toDeploy(row), code: row.code });
    });

    app.post('/:appUuid/deploys/:deployUuid/rollback', { config: creator, schema: { tags, description: 'Makes an earlier deploy the active one again (409 when it is active already).', params: deployParams, response: { 200: envelope(deploySchema) } } }, async (request) =>
      ok(toDeploy(await deploys.rollBack(commandContext(request), request.params.appUuid, request.params.deployUuid)), 'rolled back'),
    );

    app.post(
      '/:appUuid/installation/functions/:name/invoke',
      { config: runner, schema: { tags, description: "Runs a function of the app's active deploy now, for the selected company (the app installed), and answers its result or error.", params: functionParams, body: optionalBody(invokeBody, () => ({})), response: { 200: envelope(invocationSchema) } } },
      async (request) => ok(await functions.invoke(commandContext(request), request.params.appUuid, request.params.name, request.body.input ?? null), 'invoked'),
    );

    app.post('/:appUuid/installation/jobs', { config: runner, schema: { tags, description: 'Enqueues a function call (spec 4.16): run at least once, retried with backoff. An idempotencyKey seen before answers the same job.', params: appParams, body: jobBody, response: { 202: envelope(jobSchema) } } }, async (request, reply) => {
      const b = request.body;
      const row = await jobs.enqueue(commandContext(request), request.params.appUuid, { functionName: b.functionName, input: b.input ?? null, idempotencyKey: b.idempotencyKey, maxAttempts: b.maxAttempts, timeoutMs: b.timeoutMs ?? Number.MAX_SAFE_INTEGER, backoffMs: b.backoffMs });
      reply.code(202);
      return ok(toJob(row), 'enqueued');
    });

    app.get('/:appUuid/installation/jobs/:jobId', { config: runner, schema: { tags, description: 'A job: PENDING, RUNNING, SUCCEEDED (with result) or FAILED (with error).', params: jobParams, response: { 200: envelope(jobSchema) } } }, async (request) =>
      ok(toJob(await jobs.get(tenantOf(request), request.params.appUuid, request.params.jobId))),
    );

    app.get(
      '/:appUuid/runtime/logs',
      { config: runner, schema: { tags, description: "The app's log lines in the selected company (every invocation's), newest first.", params: appParams, querystring: z.object({ page: pageQueryField, limit: limitQueryField }), response: { 200: listEnvelope(runtimeLogSchema) } } },
      async (request) => {
        const tenant = tenantOf(request);
        await deps.apps.installed(tenant, request.params.appUuid);
        const { limit, page: n } = request.query;
        const { rows, total } = await listRuntimeLogs(deps.db, tenant, request.params.appUuid, { limit, offset: pageOffset(n, limit) });
        return page(rows.map(logLine), total, n, limit);
      },
    );

    app.get(
      '/:appUuid/runtime/logs/stream',
      {
        exposeHeadRoute: false,
        config: runner,
        schema: {
          tags,
          description: 'Server-Sent Events: `event: log` (AppRuntimeLogLine) for each new line, polled about every 2.5 s; `event: end` last, after 5 minutes or when the server stops.',
          params: appParams,
          response: { 200: { description: 'Server-Sent Events', content: { 'text/event-stream': { schema: z.string() } } } },
        },
      },
      async (request, reply) => {
        const tenant = tenantOf(request);
        await deps.apps.installed(tenant, request.params.appUuid);
        await deps.streams.stream(reply, tenant, request.params.appUuid, request.log);
      },
    );
  };
