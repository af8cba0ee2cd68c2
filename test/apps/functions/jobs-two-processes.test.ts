import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../../src/db/postgres.db.js';
import { newTestDatabaseUrl, onPostgres } from '../../support/test-db.js';
import { startServerProcess, type ServerProcess } from '../../support/server-process.js';

// Issue 35: jobs survive a restart and two server processes never run one job at once. Process A
// is killed (SIGKILL: no goodbye) right after the jobs are enqueued through it, some of them
// leased to it; process B and A's restart finish every job, and each job's effect (a record
// created under a uuid the job names) happens once.
type Json = Record<string, any>;
async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}/api/v2${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const BUNDLE = `
exports.work = async (input, ctx) => {
  const end = Date.now() + 300;
  while (Date.now() < end) {}
  try {
    await ctx.records.create(input.objectName, { n: String(input.n) }, { uuid: input.uuid });
  } catch (e) {
    if (!/already exists/.test(e.message)) throw e;
  }
  return { n: input.n, attempt: ctx.job.attempt };
};`;

describe.skipIf(!onPostgres)('jobs across two server processes and a restart', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let a2: ServerProcess | undefined;
  let url: string;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    url = await newTestDatabaseUrl();
    Object.assign(env, {
      DATABASE_URL: url, PASSWORD_SCRYPT_LOG_N: '10', STATISTICS_CHECK_MS: '0', APPS_SECRETS_KEY: randomBytes(32).toString('base64'),
      APPS_JOBS_POLL_MS: '100', APPS_JOBS_LEASE_MARGIN_MS: '1000', APPS_FUNCTION_CPU_MS: '2000', APPS_JOBS_CONCURRENCY: '2',
    });
    [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    for (const p of [a, b, a2]) p?.child.kill('SIGKILL');
  });

  it('every job enqueued before the kill completes after it, its effect once, never held by two runners at once', async () => {
    const reg = await call(a.url, 'POST', '/auth/register', undefined, { email: `j-${randomUUID()}@example.test`, password: 'correct horse battery staple', firstname: 'J', lastname: 'O' });
    const token = reg.body.data.token as string;
    const company = (await call(a.url, 'POST', '/companies', token, { name: 'Jobs', subdomain: `jobs-${Date.now()}` })).body.data.uuid as string;
    await call(a.url, 'POST', `/auth/companies/${company}/select`, token);
    const objectName = `things${randomBytes(3).toString('hex')}`;
    const object = (await call(a.url, 'POST', '/objects', token, { name: objectName, label: objectName })).body.data.uuid as string;
    expect((await call(a.url, 'POST', `/objects/${object}/properties`, token, { name: 'n', label: 'n', type: 'string', format: 'text' })).status).toBe(201);
    const appUuid = (await call(a.url, 'POST', '/apps/private', token, { label: 'Jobs app' })).body.data.uuid as string;
    const deployed = await call(a.url, 'POST', `/apps/${appUuid}/deploys`, token, { manifest: { functions: [{ name: 'work' }], scopes: ['records:write'] }, code: BUNDLE });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);

    const n = 8;
    const uuids = Array.from({ length: n }, () => randomUUID());
    const jobIds: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await call(a.url, 'POST', `/apps/${appUuid}/installation/jobs`, token, { functionName: 'work', input: { objectName, n: i, uuid: uuids[i] }, maxAttempts: 5, backoffMs: 50, timeoutMs: 3000 });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      jobIds.push(res.body.data.jobId);
    }
    a.child.kill('SIGKILL');
    await a.exited;
    a2 = await startServerProcess(env);

    const deadline = Date.now() + 60_000;
    const statuses = async () => Promise.all(jobIds.map(async (id) => (await call(b.url, 'GET', `/apps/${appUuid}/installation/jobs/${id}`, token)).body.data));
    let jobs = await statuses();
    while (jobs.some((j) => j.status !== 'SUCCEEDED') && Date.now() < deadline) {
      expect(jobs.filter((j) => j.status === 'FAILED')).toEqual([]);
      await new Promise((r) => setTimeout(r, 200));
      jobs = await statuses();
    }
    expect(jobs.map((j) => j.status)).toEqual(jobIds.map(() => 'SUCCEEDED'));
    expect(jobs.map((j) => j.result.n)).toEqual(uuids.map((_, i) => i));

    const db = createPostgresDb({ connectionString: url, max: 1 });
    try {
      const records = await db.query<{ uuid: string; n: string }>(`select uuid::text as uuid, vals->>'n' as n from records where tenant = $1 and is_primary order by (vals->>'n')::int`, [company]);
      expect(records).toEqual(uuids.map((uuid, i) => ({ uuid, n: String(i) })));
      const created = await db.query<{ n: number }>(`select count(*)::int as n from events where tenant = $1 and type = 'RecordCreated'`, [company]);
      expect(created[0]!.n).toBe(n);
      for (const id of jobIds) {
        const events = await db.query<{ type: string; data: Json; occurred_at: string }>('select type, data, occurred_at from events where stream_id = $1 order by revision', [`appjob-${id}`]);
        const starts = events.map((e, i) => ({ ...e, i })).filter((e) => e.type === 'AppJobStarted');
        expect(starts.map((s) => s.data.attempt)).toEqual(starts.map((_, i) => i + 1));
        // A second start came only after the first attempt ended (a retry) or after its lease ran out (a takeover).
        for (let k = 1; k < starts.length; k++) {
          const prev = starts[k - 1]!;
          const between = events.slice(prev.i + 1, starts[k]!.i).map((e) => e.type);
          if (!between.includes('AppJobRetryScheduled')) expect(Number(starts[k]!.occurred_at)).toBeGreaterThan(prev.data.leaseUntil);
        }
        expect(events.filter((e) => e.type === 'AppJobSucceeded')).toHaveLength(1);
      }
    } finally {
      await db.close();
    }
  });
});
