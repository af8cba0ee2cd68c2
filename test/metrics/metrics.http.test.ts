import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObjectForHooks, recordRoutes } from '../support/record-routes.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { viewsProjection } from '../../projections/views.projection.js';
import { objectStoreSettled } from '../../read-models/record-index/index.js';

const TOKEN = 'metrics-operator-token-for-tests';
let t: TestApp;
let owner: TestTenant;
let rx: Receiver;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', METRICS_TOKEN: TOKEN, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '50' });
  owner = await signUpWithCompany(t.app);
  rx = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => t.app.inject({ method: 'GET', url: '/metrics', headers });

/** The value of the first sample of `name` whose labels contain every `labels` pair. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[4]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('401 without the operator token or with a wrong one, in the error body', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-of-some-length' }, { authorization: owner.headers.authorization }] as Record<string, string>[]) {
      const res = await scrape(headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, errors: [{ type: 'GENERAL' }] });
      expect(res.body).not.toContain(TOKEN);
    }
  });

  it('has the request, append, group-commit, reactor-lag, webhook and rebuild series with values', async () => {
    const obj = await anObjectForHooks(t.app, owner);
    const hook = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: owner.headers, payload: { url: `${rx.url}/m`, secret: `whsec_${Buffer.from('a metrics test secret!!').toString('base64')}`, topic: `record.${obj}.created` } });
    expect(hook.statusCode, hook.body).toBe(201);
    const records = recordRoutes(t.app, t.platform.store, owner, obj);
    for (let i = 0; i < 3; i++) await records.create({ email: `m${i}@example.com` });
    // Counted once the attempt is recorded, just after the receiver has answered.
    await waitFor(async () => ((sample((await scrape()).body, 'platform_webhook_delivery_attempts_total', { outcome: 'succeeded' }) ?? 0) >= 3 ? true : null), 10_000, 'three deliveries');
    expect(rx.on('/m')).toHaveLength(3);
    for (let i = 0; i < 4; i++) await t.app.inject({ method: 'GET', url: '/api/v2/health' });
    await rebuildReadModels(t.platform.db, t.platform.store, [viewsProjection]);

    const res = await scrape();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.body;
    expect(sample(text, 'platform_http_request_duration_seconds_count', { method: 'GET', route: '/api/v2/health', status: '200' })).toBeGreaterThanOrEqual(4);
    expect(sample(text, 'platform_http_request_duration_seconds_bucket', { route: '/api/v2/webhooks', status: '201', le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'platform_event_store_append_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(5);
    expect(sample(text, 'platform_event_store_group_commit_size_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'platform_event_store_group_commit_size_sum')).toBeGreaterThanOrEqual(sample(text, 'platform_event_store_group_commit_size_count')!);
    // The reactors run in this app: both have a checkpoint; the lag is a number of events and seconds.
    for (const reactor of ['webhooks', 'syncs']) {
      const name = [...text.matchAll(/platform_reactor_lag_events\{reactor="([^"]+)"\}/g)].map((m) => m[1]).find((r) => r!.includes(reactor.slice(0, 4)));
      expect(name, `${reactor} lag in ${text.split('\n').filter((l) => l.includes('lag')).join('\n')}`).toBeDefined();
      expect(sample(text, 'platform_reactor_lag_events', { reactor: name! })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'platform_reactor_lag_seconds', { reactor: name! })).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'platform_webhook_delivery_attempts_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(3);
    const total = sample(text, 'platform_rebuild_events_total')!;
    expect(total).toBeGreaterThan(0);
    expect(sample(text, 'platform_rebuild_events_applied')).toBeGreaterThanOrEqual(total);
    expect(sample(text, 'platform_rebuild_running')).toBe(0);
    expect(sample(text, 'platform_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('has the event loop delay and the record index builds and cells (ADR 0019)', async () => {
    const obj = await anObjectForHooks(t.app, owner);
    const records = recordRoutes(t.app, t.platform.store, owner, obj);
    for (let i = 0; i < 3; i++) await records.create({ email: `loop${i}@example.com` });
    const cellsBefore = sample((await scrape()).body, 'platform_record_index_cells')!;
    const list = await t.app.inject({ method: 'POST', url: `/api/v2/${obj}/index`, headers: owner.headers, payload: { filters: [{ key: 'email', operator: 'contains', value: 'loop' }] } });
    expect(list.json().total).toBe(3);
    // The first filtered list starts a background build of the object's columns.
    await objectStoreSettled();
    // The delay is sampled every 10 ms since the last scrape: let a few samples be taken.
    await new Promise((r) => setTimeout(r, 50));
    const text = (await scrape()).body;
    expect(sample(text, 'platform_record_index_builds')).toBe(0);
    expect(sample(text, 'platform_record_index_cells')).toBeGreaterThan(cellsBefore);
    expect(sample(text, 'platform_nodejs_eventloop_lag_max_seconds')).toBeGreaterThan(0);
    expect(sample(text, 'platform_nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
  });

  it('a reactor behind the log shows its lag', async () => {
    await t.app.syncRuntime.stop();
    try {
      const obj = await anObjectForHooks(t.app, owner);
      await recordRoutes(t.app, t.platform.store, owner, obj).create({ email: 'lag@example.com' });
      const text = (await scrape()).body;
      const name = [...text.matchAll(/platform_reactor_lag_events\{reactor="([^"]*sync[^"]*)"\}/g)].map((m) => m[1])[0]!;
      expect(sample(text, 'platform_reactor_lag_events', { reactor: name })).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'platform_reactor_lag_seconds', { reactor: name })).toBeGreaterThan(0);
    } finally {
      t.app.syncRuntime.start();
    }
  });
});
