import { createHash, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { jobDecider, type JobCommand, type JobOutcome } from '../../../aggregates/app-job/job.decider.js';
import { jobStream } from '../../../aggregates/app-job/job.events.js';
import { DomainError, notFound } from '../../../aggregates/kernel/errors.js';
import { dueJobs, jobByUuid, jobOf, type JobRow } from '../../../read-models/app-functions.queries.js';
import { handleCommand, type CommandContext } from '../../commands/command-handler.js';
import type { Db } from '../../db/db.js';
import type { EventStore } from '../../event-store/port.js';
import type { AppsService } from '../apps.service.js';
import type { FunctionsService } from './functions.service.js';

export interface JobInput {
  functionName: string;
  input: unknown;
  idempotencyKey?: string;
  maxAttempts: number;
  timeoutMs: number;
  backoffMs: number;
}

/** A job's uuid: from its idempotency key (the same key in the same installation is the same job), else new. */
export const jobUuidFor = (tenant: string, appUuid: string, key: string | undefined) => {
  if (key === undefined) return randomUUID();
  const h = createHash('sha256').update(`${tenant}:${appUuid}:${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/**
 * Jobs (spec 4.16; docs/apps.md, "Jobs"): an enqueued function call, run at least once by one
 * runner at a time. The claim is an append at the revision read (`StartJob`), so two processes
 * racing for one job cannot both start it; a runner that dies leaves a lease that runs out, and
 * another process takes the job over.
 */
export function makeJobsService(deps: { db: Db; store: EventStore; apps: AppsService; functions: FunctionsService; maxTimeoutMs: number; leaseMarginMs: number }) {
  const { db, store, apps, functions } = deps;
  let wake: () => void = () => {};
  const on = (ctx: CommandContext, jobUuid: string, command: JobCommand) => handleCommand({ store, decider: jobDecider, streamId: jobStream(jobUuid), command, context: ctx });

  async function get(tenant: string, appUuid: string, jobUuid: string): Promise<JobRow> {
    await apps.installed(tenant, appUuid);
    const row = await jobByUuid(db, tenant, appUuid, jobUuid);
    if (!row) throw notFound('Job', jobUuid);
    return row;
  }

  async function enqueue(ctx: CommandContext, appUuid: string, job: JobInput): Promise<JobRow> {
    await functions.target(ctx.tenant, appUuid, job.functionName);
    const jobUuid = jobUuidFor(ctx.tenant, appUuid, job.idempotencyKey);
    const timeoutMs = Math.min(job.timeoutMs, deps.maxTimeoutMs);
    await on(ctx, jobUuid, { type: 'EnqueueJob', jobUuid, appUuid, functionName: job.functionName, input: job.input ?? null, idempotencyKey: job.idempotencyKey ?? null, maxAttempts: job.maxAttempts, timeoutMs, backoffMs: job.backoffMs, now: ctx.now });
    wake();
    return get(ctx.tenant, appUuid, jobUuid);
  }

  /** Starts a due job (the claim) and runs it; false when it was not ours to run. */
  async function claimAndRun(tenant: string, jobUuid: string, requestId: string): Promise<boolean> {
    const now = Date.now();
    const found = await jobOf(db, tenant, jobUuid);
    if (!found) return false;
    const leaseUntil = now + Number(found.timeout_ms) + deps.leaseMarginMs;
    const ctx: CommandContext = { tenant, userUuid: found.created_by, requestId, correlationId: jobUuid, now };
    let claim;
    try {
      claim = await on(ctx, jobUuid, { type: 'StartJob', now, leaseUntil });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'STATE_NOT_ALLOWED') return false;
      throw err;
    }
    if (claim.state.status !== 'RUNNING') return true;
    const attempt = claim.state.attempt;
    let outcome: JobOutcome;
    try {
      const done = await functions.invoke({ ...ctx, now: Date.now() }, found.app_uuid, found.function_name, found.input, { job: { uuid: jobUuid, attempt }, wallMs: Number(found.timeout_ms) });
      outcome = done.status === 'SUCCEEDED' ? { ok: true, result: done.result } : { ok: false, error: done.error!, retryable: true };
    } catch (err) {
      // The app uninstalled, the function gone from the active deploy: no retry can help.
      if (err instanceof DomainError && err.code === 'NOT_FOUND') outcome = { ok: false, error: { code: 'NOT_FOUND', message: err.message }, retryable: false };
      else outcome = { ok: false, error: { code: 'PLATFORM_ERROR', message: 'the platform could not run the attempt' }, retryable: true };
    }
    try {
      await on({ ...ctx, now: Date.now() }, jobUuid, { type: 'FinishAttempt', attempt, outcome, now: Date.now() });
    } catch (err) {
      // Our lease ran out and another runner took the job over: its attempt is the one that counts.
      if (!(err instanceof DomainError && err.code === 'STATE_NOT_ALLOWED')) throw err;
    }
    return true;
  }

  return {
    enqueue,
    get,
    claimAndRun,
    due: (limit: number) => dueJobs(db, Date.now(), limit),
    onEnqueue(fn: () => void) {
      wake = fn;
    },
  };
}
export type JobsService = ReturnType<typeof makeJobsService>;

/** The runner of this process: polls for due jobs (and wakes on an enqueue here), at most `concurrency` at once. */
export function startJobRunner(deps: { jobs: JobsService; pollMs: number; concurrency: number; log: FastifyBaseLogger }) {
  const { jobs } = deps;
  const running = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let busy = false;

  async function tick() {
    timer = undefined;
    if (stopped || busy) return;
    busy = true;
    try {
      const free = deps.concurrency - running.size;
      const due = free > 0 ? await jobs.due(free * 2) : [];
      for (const d of due) {
        if (stopped || running.size >= deps.concurrency) break;
        const p = jobs
          .claimAndRun(d.tenant, d.job_uuid, `job-${d.job_uuid}`)
          .catch((err: unknown) => deps.log.warn({ err, jobUuid: d.job_uuid }, 'app job: the attempt could not be recorded'))
          .finally(() => {
            running.delete(p);
            schedule(0);
          });
        running.add(p);
      }
    } catch (err) {
      if (!stopped) deps.log.warn({ err }, 'app jobs: looking for due jobs failed');
    } finally {
      busy = false;
      schedule(deps.pollMs);
    }
  }

  function schedule(ms: number) {
    if (stopped) return;
    if (timer && ms > 0) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
  }

  jobs.onEnqueue(() => schedule(0));
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.race([Promise.allSettled([...running]), new Promise((r) => setTimeout(r, 2000).unref())]);
    },
  };
}
