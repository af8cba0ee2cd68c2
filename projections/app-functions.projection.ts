import type { StoredEvent } from '../aggregates/kernel/events.js';
import { appUuidOfDeployStream, deployEventTypes, type DeployEvent } from '../aggregates/app-deploy/deploy.events.js';
import { jobEventTypes, jobUuidOfStream, type JobEvent } from '../aggregates/app-job/job.events.js';
import type { Projection } from './projection.js';
import type { Sql } from '../ports/sql.js';

async function applyDeploy(event: StoredEvent<DeployEvent> & DeployEvent, tx: Sql) {
  const at = event.metadata.occurredAt;
  switch (event.type) {
    case 'AppDeployCreated': {
      const d = event.data;
      await tx.query(
        `insert into rm_app_deploys (tenant, app_uuid, deploy_uuid, number, manifest, code, sha256, size, note, created_at, created_by)
         values ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11) on conflict do nothing`,
        [event.tenant, d.appUuid, d.deployUuid, d.number, JSON.stringify(d.manifest), d.code, d.sha256, Buffer.byteLength(d.code), d.note, at, event.metadata.userUuid],
      );
      return;
    }
    case 'AppDeployActivated':
      await tx.query(
        `insert into rm_app_deploy_heads (app_uuid, tenant, active_deploy_uuid, activated_at, revision) values ($1, $2, $3, $4, $5)
         on conflict (app_uuid) do update set active_deploy_uuid = excluded.active_deploy_uuid, activated_at = excluded.activated_at, revision = excluded.revision
         where rm_app_deploy_heads.revision < excluded.revision`,
        [appUuidOfDeployStream(event.streamId), event.tenant, event.data.deployUuid, at, event.revision],
      );
  }
}

/** Advances the job row; nothing when this event was applied already (the revision guard). */
async function advanceJob(tx: Sql, stored: StoredEvent, set: string, params: unknown[]) {
  await tx.query(`update rm_app_jobs set updated_at = $4, revision = $3, ${set} where tenant = $1 and job_uuid = $2 and revision < $3`, [
    stored.tenant, jobUuidOfStream(stored.streamId), stored.revision, stored.metadata.occurredAt, ...params,
  ]);
}

async function applyJob(event: StoredEvent<JobEvent> & JobEvent, tx: Sql) {
  const at = event.metadata.occurredAt;
  switch (event.type) {
    case 'AppJobEnqueued': {
      const d = event.data;
      await tx.query(
        `insert into rm_app_jobs (tenant, job_uuid, app_uuid, function_name, input, idempotency_key, status, attempts, max_attempts, timeout_ms, backoff_ms, next_attempt_at, created_at, updated_at, created_by, revision)
         values ($1, $2, $3, $4, $5::jsonb, $6, 'PENDING', 0, $7, $8, $9, $10, $11, $11, $12, $13) on conflict do nothing`,
        [event.tenant, d.jobUuid, d.appUuid, d.functionName, JSON.stringify(d.input ?? null), d.idempotencyKey, d.maxAttempts, d.timeoutMs, d.backoffMs, d.runAt, at, event.metadata.userUuid, event.revision],
      );
      return;
    }
    case 'AppJobStarted':
      await advanceJob(tx, event, `status = 'RUNNING', attempts = $5, lease_until = $6`, [event.data.attempt, event.data.leaseUntil]);
      return;
    case 'AppJobRetryScheduled':
      await advanceJob(tx, event, `status = 'PENDING', lease_until = null, next_attempt_at = $5, error = $6::jsonb`, [event.data.nextAttemptAt, JSON.stringify(event.data.error)]);
      return;
    case 'AppJobSucceeded':
      await advanceJob(tx, event, `status = 'SUCCEEDED', lease_until = null, result = $5::jsonb, error = null, finished_at = $4`, [JSON.stringify(event.data.result ?? null)]);
      return;
    case 'AppJobFailed':
      await advanceJob(tx, event, `status = 'FAILED', lease_until = null, attempts = $5, error = $6::jsonb, finished_at = $4`, [event.data.attempt, JSON.stringify(event.data.error)]);
  }
}

const deployTypes = new Set<string>(deployEventTypes);

/** `rm_app_deploys` and `rm_app_deploy_heads` from the deploys- streams; `rm_app_jobs` from the appjob- streams. */
export const appFunctionsProjection: Projection = {
  name: 'app-functions',
  tables: ['rm_app_deploys', 'rm_app_deploy_heads', 'rm_app_jobs'],
  handles: [...deployEventTypes, ...jobEventTypes],
  async apply(stored, tx) {
    if (deployTypes.has(stored.type)) await applyDeploy(stored as StoredEvent<DeployEvent> & DeployEvent, tx);
    else await applyJob(stored as StoredEvent<JobEvent> & JobEvent, tx);
  },
};
