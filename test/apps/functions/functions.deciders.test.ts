import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deployDecider } from '../../../aggregates/app-deploy/deploy.decider.js';
import { deployEventSchema, type DeployEvent } from '../../../aggregates/app-deploy/deploy.events.js';
import { jobDecider, retryDelayMs, type JobCommand } from '../../../aggregates/app-job/job.decider.js';
import { jobEventSchema, type JobEvent } from '../../../aggregates/app-job/job.events.js';
import { fold } from '../../../aggregates/kernel/decider.js';
import { given } from '../../support/decider-spec.js';

const A = '00000000-0000-4000-8000-0000000000a1';
const D1 = '00000000-0000-4000-8000-0000000000d1';
const D2 = '00000000-0000-4000-8000-0000000000d2';
const J = '00000000-0000-4000-8000-0000000000e1';
const manifest = { functions: [{ name: 'f' }], scopes: [] };
const create = (deployUuid: string) => ({ type: 'CreateDeploy' as const, deployUuid, appUuid: A, manifest, code: 'exports.f = () => 1', sha256: 'h', note: '' });
const deploys = { schema: deployEventSchema };

describe('deploy decider', () => {
  it('numbers deploys from 1 and activates each new one; rolls back only to an earlier, inactive deploy', () => {
    const first = given(deployDecider, [], deploys).when(create(D1)).events();
    expect(first.map((e) => e.type)).toEqual(['AppDeployCreated', 'AppDeployActivated']);
    expect(first[0]!.data).toMatchObject({ number: 1 });
    const second = given(deployDecider, first, deploys).when(create(D2)).events();
    expect(second[0]!.data).toMatchObject({ number: 2 });
    expect(second[1]!.data).toEqual({ deployUuid: D2, previousDeployUuid: D1, reason: 'DEPLOY' });
    const history: DeployEvent[] = [...first, ...second];
    given(deployDecider, history, deploys).when({ type: 'RollBackDeploy', deployUuid: D1 }).then([{ type: 'AppDeployActivated', version: 1, data: { deployUuid: D1, previousDeployUuid: D2, reason: 'ROLLBACK' } }]);
    given(deployDecider, history, deploys).when({ type: 'RollBackDeploy', deployUuid: D2 }).thenFails('STATE_NOT_ALLOWED', 'active already');
    given(deployDecider, history, deploys).when({ type: 'RollBackDeploy', deployUuid: J }).thenFails('NOT_FOUND');
    given(deployDecider, history, deploys).when(create(D1)).thenFails('CONFLICT');
  });
});

const jobs = { schema: jobEventSchema };
const enqueue: JobCommand = { type: 'EnqueueJob', jobUuid: J, appUuid: A, functionName: 'f', input: { a: 1 }, idempotencyKey: 'k', maxAttempts: 2, timeoutMs: 1000, backoffMs: 100, now: 1000 };
const enqueued: JobEvent = { type: 'AppJobEnqueued', version: 1, data: { jobUuid: J, appUuid: A, functionName: 'f', input: { a: 1 }, idempotencyKey: 'k', maxAttempts: 2, timeoutMs: 1000, backoffMs: 100, runAt: 1000 } };
const started = (attempt: number, leaseUntil: number): JobEvent => ({ type: 'AppJobStarted', version: 1, data: { attempt, leaseUntil } });
const failure = { code: 'FUNCTION_ERROR', message: 'Error: x' };

describe('job decider', () => {
  it('enqueues once per key: the same call again decides nothing, another call under the key is a conflict', () => {
    given(jobDecider, [], jobs).when(enqueue).then([enqueued]);
    given(jobDecider, [enqueued], jobs).when(enqueue).then([]);
    given(jobDecider, [enqueued], jobs).when({ ...enqueue, input: { a: 2 } }).thenFails('CONFLICT', 'another function or input');
  });

  it('starts a due job once; a running one only after its lease ran out; a stale attempt cannot finish', () => {
    given(jobDecider, [enqueued], jobs).when({ type: 'StartJob', now: 999, leaseUntil: 5000 }).thenFails('STATE_NOT_ALLOWED', 'not due');
    given(jobDecider, [enqueued], jobs).when({ type: 'StartJob', now: 1000, leaseUntil: 5000 }).then([started(1, 5000)]);
    given(jobDecider, [enqueued, started(1, 5000)], jobs).when({ type: 'StartJob', now: 4000, leaseUntil: 9000 }).thenFails('STATE_NOT_ALLOWED');
    given(jobDecider, [enqueued, started(1, 5000)], jobs).when({ type: 'StartJob', now: 5001, leaseUntil: 9000 }).then([started(2, 9000)]);
    given(jobDecider, [enqueued, started(1, 5000), started(2, 9000)], jobs).when({ type: 'FinishAttempt', attempt: 1, outcome: { ok: true, result: 1 }, now: 6000 }).thenFails('STATE_NOT_ALLOWED', 'no longer holds');
    // The lease of the last attempt ran out: nothing left to try.
    given(jobDecider, [enqueued, started(1, 5000), started(2, 9000)], jobs).when({ type: 'StartJob', now: 9001, leaseUntil: 20000 }).then([{ type: 'AppJobFailed', version: 1, data: { attempt: 2, error: { code: 'LEASE_EXPIRED', message: 'the runner of the last attempt stopped before it finished' } } }]);
  });

  it('retries a failed attempt after the backoff, fails after maxAttempts, and does not retry what cannot succeed', () => {
    given(jobDecider, [enqueued, started(1, 5000)], jobs).when({ type: 'FinishAttempt', attempt: 1, outcome: { ok: false, error: failure, retryable: true }, now: 2000 }).then([{ type: 'AppJobRetryScheduled', version: 1, data: { attempt: 1, error: failure, nextAttemptAt: 2100 } }]);
    given(jobDecider, [enqueued, started(1, 5000)], jobs).when({ type: 'FinishAttempt', attempt: 1, outcome: { ok: false, error: failure, retryable: false }, now: 2000 }).then([{ type: 'AppJobFailed', version: 1, data: { attempt: 1, error: failure } }]);
    const retried: JobEvent = { type: 'AppJobRetryScheduled', version: 1, data: { attempt: 1, error: failure, nextAttemptAt: 2100 } };
    given(jobDecider, [enqueued, started(1, 5000), retried, started(2, 9000)], jobs).when({ type: 'FinishAttempt', attempt: 2, outcome: { ok: false, error: failure, retryable: true }, now: 3000 }).then([{ type: 'AppJobFailed', version: 1, data: { attempt: 2, error: failure } }]);
    given(jobDecider, [enqueued, started(1, 5000)], jobs).when({ type: 'FinishAttempt', attempt: 1, outcome: { ok: true, result: { x: 1 } }, now: 2000 }).then([{ type: 'AppJobSucceeded', version: 1, data: { attempt: 1, result: { x: 1 } } }]);
  });

  it('law: whatever runners do, at most one attempt holds a job at a time and attempts never pass maxAttempts', () => {
    const step = fc.oneof(
      fc.record({ type: fc.constant('StartJob' as const), now: fc.integer({ min: 0, max: 100_000 }), leaseUntil: fc.integer({ min: 0, max: 100_000 }) }),
      fc.record({ type: fc.constant('FinishAttempt' as const), attempt: fc.integer({ min: 1, max: 4 }), ok: fc.boolean(), now: fc.integer({ min: 0, max: 100_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const history: JobEvent[] = [{ ...enqueued, data: { ...enqueued.data, maxAttempts: 3, runAt: 0 } }];
        for (const s of steps) {
          const command: JobCommand = s.type === 'StartJob' ? s : { type: 'FinishAttempt', attempt: s.attempt, now: s.now, outcome: s.ok ? { ok: true, result: null } : { ok: false, error: failure, retryable: true } };
          try {
            history.push(...jobDecider.decide(command, fold(jobDecider, history)));
          } catch {
            // refused: nothing appended
          }
        }
        const attempts = history.filter((e) => e.type === 'AppJobStarted').map((e) => (e.data as { attempt: number }).attempt);
        expect(attempts).toEqual(attempts.map((_, i) => i + 1));
        expect(attempts.length).toBeLessThanOrEqual(3);
        expect(history.filter((e) => e.type === 'AppJobSucceeded' || e.type === 'AppJobFailed').length).toBeLessThanOrEqual(1);
      }),
    );
    expect(retryDelayMs(100, 3)).toBe(400);
  });
});
