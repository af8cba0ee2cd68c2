import { DomainError } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import { sameJson } from '../kernel/same-json.js';
import type { JobError, JobEvent, JobStatus } from './job.events.js';

export type JobOutcome = { ok: true; result: unknown } | { ok: false; error: JobError; retryable: boolean };

export type JobCommand =
  | { type: 'EnqueueJob'; jobUuid: string; appUuid: string; functionName: string; input: unknown; idempotencyKey: string | null; maxAttempts: number; timeoutMs: number; backoffMs: number; now: number }
  | { type: 'StartJob'; now: number; leaseUntil: number }
  | { type: 'FinishAttempt'; attempt: number; outcome: JobOutcome; now: number };

export interface JobState {
  exists: boolean;
  status: JobStatus;
  functionName: string;
  input: unknown;
  attempt: number;
  maxAttempts: number;
  backoffMs: number;
  dueAt: number;
  leaseUntil: number;
}

/** The wait before the attempt after `attempt`: doubling from backoffMs, at most an hour. */
export const retryDelayMs = (backoffMs: number, attempt: number) => Math.min(backoffMs * 2 ** (attempt - 1), 3600_000);

const refused = (message: string, suggestion: string) => new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion: suggestion }]);

/** Whether a runner may start the job at `now`: due and pending, or running on a lease that ran out. */
export const startable = (s: JobState, now: number) => s.exists && ((s.status === 'PENDING' && s.dueAt <= now) || (s.status === 'RUNNING' && s.leaseUntil < now));

/**
 * A job: enqueued once per idempotency key, attempts leased to one runner at a time (an append at
 * the revision read is the claim: two runners racing, one wins), retried with backoff until
 * maxAttempts, then FAILED. A runner whose lease ran out and was taken over cannot finish it.
 */
export const jobDecider: Decider<JobState, JobCommand, JobEvent> = {
  initialState: () => ({ exists: false, status: 'PENDING', functionName: '', input: null, attempt: 0, maxAttempts: 1, backoffMs: 0, dueAt: 0, leaseUntil: 0 }),
  decide(command, s) {
    switch (command.type) {
      case 'EnqueueJob': {
        if (s.exists) {
          if (s.functionName === command.functionName && sameJson(s.input, command.input)) return [];
          throw new DomainError('CONFLICT', 'the idempotency key was used for another call', [
            { message: `Idempotency key ${command.idempotencyKey ?? ''} names a job with another function or input`, type: 'GENERAL', correctionSuggestion: 'Use a new idempotencyKey for a different call' },
          ]);
        }
        const { type: _t, now, ...data } = command;
        return [{ type: 'AppJobEnqueued', version: 1, data: { ...data, runAt: now } }];
      }
      case 'StartJob': {
        if (!startable(s, command.now)) throw refused(`the job is ${s.status} and not due`, 'Wait: a runner starts the job when it is due');
        // A lease that ran out on the last attempt: the attempt counts, nothing is left to try.
        if (s.status === 'RUNNING' && s.attempt >= s.maxAttempts) {
          return [{ type: 'AppJobFailed', version: 1, data: { attempt: s.attempt, error: { code: 'LEASE_EXPIRED', message: 'the runner of the last attempt stopped before it finished' } } }];
        }
        return [{ type: 'AppJobStarted', version: 1, data: { attempt: s.attempt + 1, leaseUntil: command.leaseUntil } }];
      }
      case 'FinishAttempt': {
        if (s.status !== 'RUNNING' || s.attempt !== command.attempt) throw refused(`attempt ${command.attempt} no longer holds the job`, 'Nothing to do: another runner took the job over');
        const o = command.outcome;
        if (o.ok) return [{ type: 'AppJobSucceeded', version: 1, data: { attempt: s.attempt, result: o.result } }];
        if (o.retryable && s.attempt < s.maxAttempts) {
          return [{ type: 'AppJobRetryScheduled', version: 1, data: { attempt: s.attempt, error: o.error, nextAttemptAt: command.now + retryDelayMs(s.backoffMs, s.attempt) } }];
        }
        return [{ type: 'AppJobFailed', version: 1, data: { attempt: s.attempt, error: o.error } }];
      }
    }
  },
  evolve(s, event) {
    switch (event.type) {
      case 'AppJobEnqueued': {
        const d = event.data;
        return { ...s, exists: true, status: 'PENDING', functionName: d.functionName, input: d.input, maxAttempts: d.maxAttempts, backoffMs: d.backoffMs, dueAt: d.runAt };
      }
      case 'AppJobStarted':
        return { ...s, status: 'RUNNING', attempt: event.data.attempt, leaseUntil: event.data.leaseUntil };
      case 'AppJobRetryScheduled':
        return { ...s, status: 'PENDING', dueAt: event.data.nextAttemptAt };
      case 'AppJobSucceeded':
        return { ...s, status: 'SUCCEEDED' };
      case 'AppJobFailed':
        return { ...s, status: 'FAILED' };
    }
  },
};
