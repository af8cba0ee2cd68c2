import { z } from 'zod';

const uuid = z.string().uuid();
export const jobStatuses = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export type JobStatus = (typeof jobStatuses)[number];

/** Why an attempt failed: a stable code (docs/apps.md, "Jobs") and a message for people. */
export const jobErrorSchema = z.object({ code: z.string(), message: z.string() });
export type JobError = z.infer<typeof jobErrorSchema>;

export const appJobEnqueued = z.object({
  type: z.literal('AppJobEnqueued'),
  version: z.literal(1),
  data: z.object({
    jobUuid: uuid, appUuid: uuid, functionName: z.string(), input: z.unknown(), idempotencyKey: z.string().nullable(),
    maxAttempts: z.number().int().min(1), timeoutMs: z.number().int().min(1), backoffMs: z.number().int().min(0), runAt: z.number().int(),
  }),
});
/** An attempt began, held by its runner until `leaseUntil` (another process may take the job over after it). */
export const appJobStarted = z.object({ type: z.literal('AppJobStarted'), version: z.literal(1), data: z.object({ attempt: z.number().int().min(1), leaseUntil: z.number().int() }) });
export const appJobRetryScheduled = z.object({
  type: z.literal('AppJobRetryScheduled'),
  version: z.literal(1),
  data: z.object({ attempt: z.number().int(), error: jobErrorSchema, nextAttemptAt: z.number().int() }),
});
export const appJobSucceeded = z.object({ type: z.literal('AppJobSucceeded'), version: z.literal(1), data: z.object({ attempt: z.number().int(), result: z.unknown() }) });
export const appJobFailed = z.object({ type: z.literal('AppJobFailed'), version: z.literal(1), data: z.object({ attempt: z.number().int(), error: jobErrorSchema }) });

export const jobEventSchema = z.discriminatedUnion('type', [appJobEnqueued, appJobStarted, appJobRetryScheduled, appJobSucceeded, appJobFailed]);
export type JobEvent = z.infer<typeof jobEventSchema>;
export const jobEventTypes = jobEventSchema.options.map((o) => o.shape.type.value);

/** One stream per job, in the installing company's tenant. Not under `app-` (see deploy.events.ts). */
export const JOB_STREAM_PREFIX = 'appjob-';
export const jobStream = (jobUuid: string) => `${JOB_STREAM_PREFIX}${jobUuid}`;
export const jobUuidOfStream = (streamId: string) => streamId.slice(JOB_STREAM_PREFIX.length);
