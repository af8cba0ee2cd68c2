import type { DeployManifest } from '../aggregates/app-deploy/deploy.manifest.js';
import type { JobError, JobStatus } from '../aggregates/app-job/job.events.js';
import type { Sql } from '../ports/sql.js';

export interface DeployRow {
  tenant: string;
  app_uuid: string;
  deploy_uuid: string;
  number: number;
  manifest: DeployManifest;
  code: string;
  sha256: string;
  size: number;
  note: string;
  created_at: number;
  created_by: string | null;
  active: boolean;
}

export interface JobRow {
  tenant: string;
  job_uuid: string;
  app_uuid: string;
  function_name: string;
  input: unknown;
  idempotency_key: string | null;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  timeout_ms: number;
  backoff_ms: number;
  next_attempt_at: number;
  lease_until: number | null;
  result: unknown;
  error: JobError | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  created_by: string | null;
  revision: number;
}

export interface RuntimeLogRow {
  seq: number;
  invocation_uuid: string;
  function_name: string;
  job_uuid: string | null;
  level: string;
  message: string;
  at: number;
}

const deployColumns = `d.tenant, d.app_uuid, d.deploy_uuid, d.number, d.manifest, d.sha256, d.size, d.note, d.created_at, d.created_by,
  coalesce(h.active_deploy_uuid = d.deploy_uuid, false) as active`;

/** The deploys of an app, newest first, without their code. */
export async function listDeploys(sql: Sql, tenant: string, appUuid: string, o: { limit: number; offset: number }): Promise<{ rows: Omit<DeployRow, 'code'>[]; total: number }> {
  const rows = await sql.query<Omit<DeployRow, 'code'>>(
    `select ${deployColumns} from rm_app_deploys d left join rm_app_deploy_heads h on h.app_uuid = d.app_uuid
      where d.tenant = $1 and d.app_uuid = $2 order by d.number desc limit $3 offset $4`,
    [tenant, appUuid, o.limit, o.offset],
  );
  const [count] = await sql.query<{ n: number }>('select count(*)::int8 as n from rm_app_deploys where tenant = $1 and app_uuid = $2', [tenant, appUuid]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** One deploy of the app, code included. */
export async function deployByUuid(sql: Sql, tenant: string, appUuid: string, deployUuid: string): Promise<DeployRow | null> {
  const [row] = await sql.query<DeployRow>(
    `select ${deployColumns}, d.code from rm_app_deploys d left join rm_app_deploy_heads h on h.app_uuid = d.app_uuid
      where d.tenant = $1 and d.app_uuid = $2 and d.deploy_uuid = $3`,
    [tenant, appUuid, deployUuid],
  );
  return row ?? null;
}

/** The active deploy of an app, whichever company installed it (the caller checked the installation). */
export async function activeDeploy(sql: Sql, appUuid: string): Promise<DeployRow | null> {
  const [row] = await sql.query<DeployRow>(
    `select ${deployColumns}, d.code from rm_app_deploy_heads h join rm_app_deploys d on d.app_uuid = h.app_uuid and d.deploy_uuid = h.active_deploy_uuid
      where h.app_uuid = $1`,
    [appUuid],
    'app_active_deploy',
  );
  return row ?? null;
}

export async function jobByUuid(sql: Sql, tenant: string, appUuid: string, jobUuid: string): Promise<JobRow | null> {
  const [row] = await sql.query<JobRow>('select * from rm_app_jobs where tenant = $1 and app_uuid = $2 and job_uuid = $3', [tenant, appUuid, jobUuid]);
  return row ?? null;
}

/** A job of the tenant, whichever app (the runner's read). */
export async function jobOf(sql: Sql, tenant: string, jobUuid: string): Promise<JobRow | null> {
  const [row] = await sql.query<JobRow>('select * from rm_app_jobs where tenant = $1 and job_uuid = $2', [tenant, jobUuid]);
  return row ?? null;
}

/** Jobs a runner may start at `now`, every company's: pending and due, or running on a lease that ran out. */
export async function dueJobs(sql: Sql, now: number, limit: number): Promise<Pick<JobRow, 'tenant' | 'job_uuid'>[]> {
  return sql.query(
    `(select tenant, job_uuid, next_attempt_at as due from rm_app_jobs where status = 'PENDING' and next_attempt_at <= $1 order by next_attempt_at limit $2)
     union all
     (select tenant, job_uuid, lease_until as due from rm_app_jobs where status = 'RUNNING' and lease_until < $1 order by lease_until limit $2)
     order by due limit $2`,
    [now, limit],
  );
}

/** Keeps an invocation's log lines. */
export async function insertRuntimeLogs(sql: Sql, tenant: string, appUuid: string, lines: { invocationUuid: string; functionName: string; jobUuid: string | null; level: string; message: string; at: number }[]) {
  if (lines.length === 0) return;
  await sql.query(
    `insert into app_runtime_logs (tenant, app_uuid, invocation_uuid, function_name, job_uuid, level, message, at)
     select $1, $2, x.invocation_uuid, x.function_name, x.job_uuid, x.level, x.message, x.at
       from jsonb_to_recordset($3::jsonb) as x(invocation_uuid uuid, function_name text, job_uuid uuid, level text, message text, at bigint)`,
    [tenant, appUuid, JSON.stringify(lines.map((l) => ({ invocation_uuid: l.invocationUuid, function_name: l.functionName, job_uuid: l.jobUuid, level: l.level, message: l.message, at: l.at })))],
  );
}

/** A page of an app's log lines in the tenant, newest first. */
export async function listRuntimeLogs(sql: Sql, tenant: string, appUuid: string, o: { limit: number; offset: number }): Promise<{ rows: RuntimeLogRow[]; total: number }> {
  const rows = await sql.query<RuntimeLogRow>(
    'select seq, invocation_uuid, function_name, job_uuid, level, message, at from app_runtime_logs where tenant = $1 and app_uuid = $2 order by seq desc limit $3 offset $4',
    [tenant, appUuid, o.limit, o.offset],
  );
  const [count] = await sql.query<{ n: number }>('select count(*)::int8 as n from app_runtime_logs where tenant = $1 and app_uuid = $2', [tenant, appUuid]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** Lines after `afterSeq`, oldest first (the live stream). */
export async function runtimeLogsAfter(sql: Sql, tenant: string, appUuid: string, afterSeq: number, limit: number): Promise<RuntimeLogRow[]> {
  return sql.query<RuntimeLogRow>(
    'select seq, invocation_uuid, function_name, job_uuid, level, message, at from app_runtime_logs where tenant = $1 and app_uuid = $2 and seq > $3 order by seq limit $4',
    [tenant, appUuid, afterSeq, limit],
  );
}

/** The newest line's seq (0: none): where a live stream starts. */
export async function lastRuntimeLogSeq(sql: Sql, tenant: string, appUuid: string): Promise<number> {
  const [row] = await sql.query<{ seq: number | null }>('select max(seq) as seq from app_runtime_logs where tenant = $1 and app_uuid = $2', [tenant, appUuid]);
  return Number(row?.seq ?? 0);
}
