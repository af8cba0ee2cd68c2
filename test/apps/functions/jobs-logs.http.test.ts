import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { activeRuntimeLogStreams } from '../../../src/apps/functions/functions.module.js';
import { rebuildReadModels } from '../../../src/projections/rebuild.js';
import { projections } from '../../../projections/index.js';
import { joinCompany, signUpWithCompany, type TestTenant } from '../../support/actors.js';
import { caller, errorOf, startAppsApp } from '../apps-fixtures.js';
import { aDeployedApp, FUNCTION_ENV, install, settledJob } from './functions-fixtures.js';

let t: Awaited<ReturnType<typeof startAppsApp>>;
let call: ReturnType<typeof caller>;
let maker: TestTenant;
let buyer: TestTenant;
let other: TestTenant;
let appUuid: string;
let base: string;

beforeAll(async () => {
  t = await startAppsApp(FUNCTION_ENV);
  call = caller(t.app);
  maker = await signUpWithCompany(t.app);
  buyer = await signUpWithCompany(t.app);
  other = await signUpWithCompany(t.app);
  ({ appUuid } = await aDeployedApp(t.app, maker, other, []));
  await install(t.app, appUuid, buyer);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

const enqueue = (who: TestTenant, body: Record<string, unknown>) => call('POST', `/apps/${appUuid}/installation/jobs`, who.headers, body);

describe('jobs', () => {
  it('a job is enqueued PENDING (202) and runs to SUCCEEDED with its result', async () => {
    const res = await enqueue(buyer, { functionName: 'echo', input: { n: 1 } });
    expect(res.statusCode, res.body).toBe(202);
    const job = res.json().data;
    expect(job).toMatchObject({ functionName: 'echo', attempts: 0, maxAttempts: 3, result: null, error: null });
    expect(['PENDING', 'RUNNING', 'SUCCEEDED']).toContain(job.status);
    const done = await settledJob(t.app, buyer, appUuid, job.jobId);
    expect(done).toMatchObject({ status: 'SUCCEEDED', attempts: 1, error: null, nextAttemptAt: null });
    expect(done.result).toEqual({ input: { n: 1 }, company: buyer.companyUuid, app: appUuid, settings: {}, job: { uuid: job.jobId, attempt: 1 } });
    expect(done.finishedAt).toBeGreaterThanOrEqual(done.createdAt);
  });

  it('retries with backoff until an attempt succeeds, or FAILED with the last error after maxAttempts', async () => {
    const flaky = (await enqueue(buyer, { functionName: 'flaky', input: { okAt: 3 }, maxAttempts: 5, backoffMs: 20 })).json().data;
    expect(await settledJob(t.app, buyer, appUuid, flaky.jobId)).toMatchObject({ status: 'SUCCEEDED', attempts: 3, result: { attempt: 3 }, error: null });
    const failing = (await enqueue(buyer, { functionName: 'fail', maxAttempts: 2, backoffMs: 10 })).json().data;
    expect(await settledJob(t.app, buyer, appUuid, failing.jobId)).toMatchObject({ status: 'FAILED', attempts: 2, result: null, error: { code: 'FUNCTION_ERROR', message: 'Error: always' } });
    const looping = (await enqueue(buyer, { functionName: 'loop', maxAttempts: 1 })).json().data;
    expect(await settledJob(t.app, buyer, appUuid, looping.jobId)).toMatchObject({ status: 'FAILED', error: { code: 'CPU_LIMIT' } });
    const types = await t.platform.db.query<{ type: string }>('select type from events where stream_id = $1 order by revision', [`appjob-${flaky.jobId}`]);
    expect(types.map((e) => e.type)).toEqual(['AppJobEnqueued', 'AppJobStarted', 'AppJobRetryScheduled', 'AppJobStarted', 'AppJobRetryScheduled', 'AppJobStarted', 'AppJobSucceeded']);
  });

  it('an idempotency key gives the same job once; another call under the same key is a 409', async () => {
    const first = (await enqueue(buyer, { functionName: 'echo', input: { k: 1 }, idempotencyKey: 'order-42' })).json().data;
    const again = await enqueue(buyer, { functionName: 'echo', input: { k: 1 }, idempotencyKey: 'order-42' });
    expect(again.statusCode).toBe(202);
    expect(again.json().data.jobId).toBe(first.jobId);
    errorOf(await enqueue(buyer, { functionName: 'echo', input: { k: 2 }, idempotencyKey: 'order-42' }), 409);
    await settledJob(t.app, buyer, appUuid, first.jobId);
    const started = await t.platform.db.query<{ n: number }>(`select count(*)::int as n from events where stream_id = $1 and type = 'AppJobStarted'`, [`appjob-${first.jobId}`]);
    expect(started[0]!.n).toBe(1);
  });

  it('a rebuild gives the same job rows', async () => {
    const before = await t.platform.db.query('select * from rm_app_jobs order by job_uuid');
    await rebuildReadModels(t.platform.db, t.platform.store, projections.filter((p) => p.name === 'app-functions'));
    expect(await t.platform.db.query('select * from rm_app_jobs order by job_uuid')).toEqual(before);
  });

  it('400 for a bad body or unknown function, 401, 403 without apps:functions, 404 in another company', async () => {
    const job = (await enqueue(buyer, { functionName: 'echo' })).json().data;
    const member = await joinCompany(t.app, buyer, { role: 'USER' });
    errorOf(await enqueue(buyer, { functionName: 'echo', maxAttempts: 0 }), 400);
    errorOf(await enqueue(buyer, { functionName: 'nope' }), 404);
    for (const [method, url, body] of [['POST', `/apps/${appUuid}/installation/jobs`, { functionName: 'echo' }], ['GET', `/apps/${appUuid}/installation/jobs/${job.jobId}`]] as const) {
      errorOf(await call(method, url, {}, body), 401);
      errorOf(await call(method, url, member.headers, body), 403);
      errorOf(await call(method, url, other.headers, body), 404);
      errorOf(await call(method, url, maker.headers, body), 404);
    }
    errorOf(await call('GET', `/apps/${appUuid}/installation/jobs/${maker.userUuid}`, buyer.headers), 404);
  });
});

/** Opens the stream over real HTTP; resolves with the response and a way to read its events. */
function openStream(url: string, token: string) {
  return new Promise<{ status: number; events: string[]; close(): void; ended: Promise<void> }>((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      const events: string[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        const parts = buffer.split('\n\n');
        buffer = parts.pop()!;
        events.push(...parts.filter((p) => p.includes('event: ')));
      });
      const ended = new Promise<void>((done) => res.on('close', () => done()));
      resolve({ status: res.statusCode!, events, close: () => req.destroy(), ended });
    });
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)));
    req.end();
  });
}

const until = async (check: () => boolean, ms = 60_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('runtime logs', () => {
  it('every invocation leaves its lines; the list is paginated, newest first, per company', async () => {
    await call('POST', `/apps/${appUuid}/installation/functions/talk/invoke`, buyer.headers, { input: { x: 0 } });
    await call('POST', `/apps/${appUuid}/installation/functions/talk/invoke`, buyer.headers, { input: { x: 1 } });
    const page = (await call('GET', `/apps/${appUuid}/runtime/logs?limit=3`, buyer.headers)).json();
    expect(page.data.map((l: { level: string; message: string }) => [l.level, l.message.split(' (')[0]])).toEqual([['info', 'talk SUCCEEDED'], ['warn', 'careful'], ['info', 'hello {"x":1}']]);
    expect(page.total).toBeGreaterThanOrEqual(6);
    expect(page.perPage).toBe(3);
    const seqs = page.data.map((l: { seq: number }) => l.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    const next = (await call('GET', `/apps/${appUuid}/runtime/logs?limit=3&page=1`, buyer.headers)).json().data;
    expect(next[0].seq).toBeLessThan(seqs[2]);
    errorOf(await call('GET', `/apps/${appUuid}/runtime/logs`, other.headers), 404);
    errorOf(await call('GET', `/apps/${appUuid}/runtime/logs`, {}), 401);
    errorOf(await call('GET', `/apps/${appUuid}/runtime/logs?limit=1000`, buyer.headers), 400);
  });

  it('the stream sends new lines as they come (SSE) and refuses others', async () => {
    const stream = await openStream(`${base}/api/v2/apps/${appUuid}/runtime/logs/stream`, buyer.token);
    expect(stream.status).toBe(200);
    await call('POST', `/apps/${appUuid}/installation/functions/talk/invoke`, buyer.headers, { input: 'live' });
    await until(() => stream.events.length >= 3);
    const lines = stream.events.map((e) => JSON.parse(/data: (.*)/.exec(e)![1]!));
    expect(lines.map((l) => l.message.split(' (')[0])).toEqual(['hello live', 'careful', 'talk SUCCEEDED']);
    expect(stream.events[0]).toMatch(/^id: \d+\nevent: log\n/);
    stream.close();
    errorOf(await call('GET', `/apps/${appUuid}/runtime/logs/stream`, other.headers), 404);
    const member = await joinCompany(t.app, buyer, { role: 'USER' });
    errorOf(await call('GET', `/apps/${appUuid}/runtime/logs/stream`, member.headers), 403);
  });

  it('50 streams opened and dropped release every handle', async () => {
    await until(() => activeRuntimeLogStreams() === 0);
    const handles = () => (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;
    const baseline = handles();
    const streams = await Promise.all(Array.from({ length: 50 }, () => openStream(`${base}/api/v2/apps/${appUuid}/runtime/logs/stream`, buyer.token)));
    expect(streams.every((s) => s.status === 200)).toBe(true);
    await until(() => activeRuntimeLogStreams() === 50);
    for (const s of streams) s.close();
    await Promise.all(streams.map((s) => s.ended));
    await until(() => activeRuntimeLogStreams() === 0);
    await until(() => handles() <= baseline);
    expect(handles()).toBeLessThanOrEqual(baseline);
  });
});
