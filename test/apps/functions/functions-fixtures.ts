import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { TestTenant } from '../../support/actors.js';
import { caller, superAdmin } from '../apps-fixtures.js';

/** The test bundle: one function per behaviour a test needs (CommonJS, as `apps build` makes it). */
export const BUNDLE = `
exports.echo = async (input, ctx) => ({ input, company: ctx.company.uuid, app: ctx.app.uuid, settings: ctx.settings, job: ctx.job });
exports.loop = () => { for (;;) {} };
exports.bomb = () => { const a = []; for (;;) a.push(new Uint8Array(8 << 20)); };
exports.big = () => 'y'.repeat(5000);
exports.readRecord = async (input, ctx) => ctx.records.get(input.uuid);
exports.query = async (input, ctx) => ctx.records.query(input.objectName, { limit: 5 });
exports.writeRecord = async (input, ctx) => ctx.records.update(input.uuid, input.properties);
exports.createRecord = async (input, ctx) => ctx.records.create(input.objectName, input.properties, { uuid: input.uuid });
exports.secret = async (input, ctx) => ctx.secrets.get(input.name);
exports.state = async (input, ctx) => { await ctx.state.set({ n: input.n }); return ctx.state.get('n'); };
exports.fetchIt = async (input, ctx) => { const r = await ctx.fetch(input.url); return { status: r.status, body: r.body }; };
exports.talk = async (input, ctx) => { console.log('hello', input); ctx.log.warn('careful'); return 1; };
exports.flaky = async (input, ctx) => { if (ctx.job.attempt < input.okAt) throw new Error('not yet ' + ctx.job.attempt); return { attempt: ctx.job.attempt }; };
exports.fail = async () => { throw new Error('always'); };
exports.catchIt = async (input, ctx) => { try { return await ctx.records.get(input.uuid); } catch (e) { return { caught: e.message }; } };
`;
export const FUNCTIONS = ['echo', 'loop', 'bomb', 'big', 'readRecord', 'query', 'writeRecord', 'createRecord', 'secret', 'state', 'fetchIt', 'talk', 'flaky', 'fail', 'catchIt'];

export const FUNCTION_ENV = {
  APPS_FUNCTION_CPU_MS: '400',
  APPS_FUNCTION_WALL_MS: '4000',
  APPS_FUNCTION_WORKER_HEAP_MB: '64',
  APPS_FUNCTION_OUTPUT_BYTES: '4096',
  APPS_JOBS_POLL_MS: '50',
  APPS_JOBS_LEASE_MARGIN_MS: '500',
  APPS_LOGS_POLL_MS: '50',
};

/** A public app by `maker`, approved by a SUPER_ADMIN (who selected `reviewerCompany`), deployed with BUNDLE and `scopes`. */
export async function aDeployedApp(app: FastifyInstance, maker: TestTenant, reviewerCompany: TestTenant, scopes: string[], settingsSchema: unknown[] = []) {
  const call = caller(app);
  const appUuid = (await call('POST', '/apps/public', maker.headers, { label: 'Functions app' })).json().data.uuid as string;
  expect((await call('PUT', `/apps/public/${appUuid}`, maker.headers, { label: 'Functions app', settingsSchema })).statusCode).toBe(200);
  await call('POST', `/apps/public/${appUuid}/submit`, maker.headers);
  const root = await superAdmin(app, reviewerCompany);
  expect((await call('POST', `/apps/public/${appUuid}/review`, root.headers, { outcome: 'APPROVE', feedback: 'ok' })).statusCode).toBe(200);
  const deployed = await call('POST', `/apps/${appUuid}/deploys`, maker.headers, { manifest: { functions: FUNCTIONS.map((name) => ({ name })), scopes }, code: BUNDLE });
  expect(deployed.statusCode, deployed.body).toBe(201);
  return { appUuid, deployUuid: deployed.json().data.uuid as string };
}

export async function install(app: FastifyInstance, appUuid: string, who: TestTenant, settings: Record<string, unknown> = {}) {
  const res = await caller(app)('POST', `/apps/${appUuid}/install`, who.headers, { settings });
  expect(res.statusCode, res.body).toBe(201);
}

/** Polls a job until it is SUCCEEDED or FAILED. */
export async function settledJob(app: FastifyInstance, who: TestTenant, appUuid: string, jobId: string, timeoutMs = 20_000) {
  const call = caller(app);
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = (await call('GET', `/apps/${appUuid}/installation/jobs/${jobId}`, who.headers)).json().data;
    if (job.status === 'SUCCEEDED' || job.status === 'FAILED') return job;
    if (Date.now() > until) throw new Error(`job ${jobId} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
