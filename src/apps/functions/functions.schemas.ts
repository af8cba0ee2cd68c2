import { z } from 'zod';
import { deployManifestSchema } from '../../../aggregates/app-deploy/deploy.manifest.js';
import { jobStatuses } from '../../../aggregates/app-job/job.events.js';
import type { DeployRow, JobRow } from '../../../read-models/app-functions.queries.js';
import type { Invocation } from './functions.service.js';

const errorSchema = z.object({ code: z.string(), message: z.string() }).meta({ id: 'AppFunctionError', description: 'CPU_LIMIT, WALL_TIME, MEMORY_LIMIT, OUTPUT_LIMIT, NEVER_SETTLED, FUNCTION_ERROR, SANDBOX_ERROR, NOT_FOUND, LEASE_EXPIRED, PLATFORM_ERROR (docs/apps.md)' });

export const deployBody = z.object({
  manifest: deployManifestSchema,
  code: z.string().min(1).describe('The CommonJS bundle (esbuild --format=cjs): every function of the manifest exported by name'),
  note: z.string().max(2000).default(''),
});

export const deploySchema = z
  .object({
    uuid: z.string(),
    appUuid: z.string(),
    number: z.number().int().describe('1 for the first deploy of the app, then 2, 3, ...'),
    active: z.boolean(),
    manifest: deployManifestSchema,
    sha256: z.string(),
    size: z.number().int(),
    note: z.string(),
    createdAt: z.number().int(),
    createdByUuid: z.string().nullable(),
  })
  .meta({ id: 'AppDeploy' });
export const deployWithCodeSchema = deploySchema.extend({ code: z.string() }).meta({ id: 'AppDeployWithCode' });

export const toDeploy = (r: Omit<DeployRow, 'code'>) => ({
  uuid: r.deploy_uuid, appUuid: r.app_uuid, number: r.number, active: r.active, manifest: r.manifest, sha256: r.sha256, size: r.size, note: r.note, createdAt: Number(r.created_at), createdByUuid: r.created_by,
});

export const invokeBody = z.object({ input: z.unknown().optional() });
const logLineSchema = z.object({ level: z.string(), message: z.string(), at: z.number().int() });
export const invocationSchema = z
  .object({
    invocationUuid: z.string(),
    deployUuid: z.string(),
    functionName: z.string(),
    status: z.enum(['SUCCEEDED', 'FAILED']),
    result: z.unknown().describe('What the function returned (JSON), null when it failed'),
    error: errorSchema.nullable(),
    cpuMs: z.number().int(),
    wallMs: z.number().int(),
    logs: z.array(logLineSchema),
  })
  .meta({ id: 'AppFunctionInvocation' });
export const toInvocation = (i: Invocation) => i;

export const jobBody = z.object({
  functionName: z.string().min(1).max(64),
  input: z.unknown().optional(),
  idempotencyKey: z.string().min(1).max(200).optional().describe('The same key in the same installation is the same job: enqueued once'),
  maxAttempts: z.number().int().min(1).max(10).default(3),
  timeoutMs: z.number().int().min(1).max(3_600_000).optional().describe("Each attempt's wall time (default and maximum: the function's)"),
  backoffMs: z.number().int().min(0).max(3_600_000).default(1000).describe('The wait before the second attempt; doubled for each later one'),
});

export const jobSchema = z
  .object({
    jobId: z.string(),
    appUuid: z.string(),
    functionName: z.string(),
    status: z.enum(jobStatuses),
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    timeoutMs: z.number().int(),
    nextAttemptAt: z.number().int().nullable(),
    idempotencyKey: z.string().nullable(),
    result: z.unknown(),
    error: errorSchema.nullable().describe("The last attempt's error (kept while a retry is pending)"),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    finishedAt: z.number().int().nullable(),
  })
  .meta({ id: 'AppJob' });

export const toJob = (r: JobRow) => ({
  jobId: r.job_uuid, appUuid: r.app_uuid, functionName: r.function_name, status: r.status, attempts: r.attempts, maxAttempts: r.max_attempts, timeoutMs: r.timeout_ms,
  nextAttemptAt: r.status === 'PENDING' ? Number(r.next_attempt_at) : null, idempotencyKey: r.idempotency_key, result: r.result ?? null, error: r.error ?? null,
  createdAt: Number(r.created_at), updatedAt: Number(r.updated_at), finishedAt: r.finished_at === null ? null : Number(r.finished_at),
});

export const runtimeLogSchema = z
  .object({ seq: z.number().int(), invocationUuid: z.string(), functionName: z.string(), jobUuid: z.string().nullable(), level: z.string(), message: z.string(), at: z.number().int() })
  .meta({ id: 'AppRuntimeLogLine' });
