import { randomUUID } from 'node:crypto';
import { notFound } from '../../../aggregates/kernel/errors.js';
import { installationStream } from '../../../aggregates/app/installation.events.js';
import { activeDeploy, insertRuntimeLogs } from '../../../read-models/app-functions.queries.js';
import type { CommandContext } from '../../commands/command-handler.js';
import type { Db } from '../../db/db.js';
import type { AppsService } from '../apps.service.js';
import { makeHostCall, type HostDeps } from './host-api.js';
import type { Limits } from './limits.js';
import type { Sandbox } from './sandbox.pool.js';

export interface Invocation {
  invocationUuid: string;
  deployUuid: string;
  functionName: string;
  status: 'SUCCEEDED' | 'FAILED';
  result: unknown;
  error: { code: string; message: string } | null;
  cpuMs: number;
  wallMs: number;
  logs: { level: string; message: string; at: number }[];
}

/**
 * Invocations of an installed app's functions (docs/apps.md, "Functions"): the active deploy's
 * function, in the sandbox, with its host API scoped to the installing company (the tenant of
 * `ctx`). Every invocation's log lines are kept for the runtime logs.
 */
export function makeFunctionsService(deps: { db: Db; apps: AppsService; sandbox: Sandbox; limits: Limits; host: HostDeps }) {
  const { db, apps, sandbox, limits } = deps;

  /** The function `name` of the app's active deploy, for a company that installed the app. */
  async function target(tenant: string, appUuid: string, name: string) {
    const { installation } = await apps.installed(tenant, appUuid);
    const deploy = await activeDeploy(db, appUuid);
    const spec = deploy?.manifest.functions.find((f) => f.name === name);
    if (!deploy || !spec) throw notFound('Function', name);
    return { deploy, spec, installation };
  }

  async function invoke(ctx: CommandContext, appUuid: string, name: string, input: unknown, opts: { job?: { uuid: string; attempt: number }; wallMs?: number } = {}): Promise<Invocation> {
    const { deploy, spec, installation } = await target(ctx.tenant, appUuid, name);
    const invocationUuid = randomUUID();
    const actorCtx: CommandContext = { ...ctx, causationId: ctx.causationId ?? null, app: { appUuid, installation: installationStream(appUuid) } };
    const host = makeHostCall(deps.host, { ctx: actorCtx, appUuid, scopes: deploy.manifest.scopes, maxCalls: limits.hostCalls });
    const context = {
      app: { uuid: appUuid },
      company: { uuid: ctx.tenant },
      job: opts.job ?? null,
      invocationId: invocationUuid,
      settings: installation.settings,
    };
    const run = await sandbox.run({ code: deploy.code, functionName: name, input, context, limits: limits.of(spec, opts.wallMs), host });
    const ok = run.outcome.ok;
    const done: Invocation = {
      invocationUuid,
      deployUuid: deploy.deploy_uuid,
      functionName: name,
      status: ok ? 'SUCCEEDED' : 'FAILED',
      result: run.outcome.ok ? JSON.parse(run.outcome.json) : null,
      error: run.outcome.ok ? null : run.outcome.error,
      cpuMs: run.cpuMs,
      wallMs: run.wallMs,
      logs: run.logs,
    };
    const summary = { level: ok ? 'info' : 'error', message: `${name} ${done.status}${done.error ? ` ${done.error.code}: ${done.error.message}` : ''} (wall ${done.wallMs} ms, cpu ${done.cpuMs} ms, deploy ${deploy.number})`, at: Date.now() };
    await insertRuntimeLogs(db, ctx.tenant, appUuid, [...run.logs, summary].map((l) => ({ ...l, invocationUuid, functionName: name, jobUuid: opts.job?.uuid ?? null })));
    return done;
  }

  return { invoke, target };
}
export type FunctionsService = ReturnType<typeof makeFunctionsService>;
