import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDispatcher } from '../../src/webhooks/dispatcher.js';
import { makeUrlGuard } from '../../src/outbound/index.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { anObjectForHooks, recordRoutes } from '../support/record-routes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';

// No WEBHOOK_ALLOWED_HOSTS here, and no reactors: the test drives its own dispatcher.
let t: TestApp;
let owner: TestTenant;
let rx: Receiver;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
  await anObjectForHooks(t.app, owner, 'lead');
  await anObjectForHooks(t.app, owner, 'burst');
  rx = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const body = { secret: 'safety-secret', topic: 'record.lead.created' };

/** Waits until the global log can be read up to the record's events (on a shared PostgreSQL other sessions' open transactions hold readers back a moment). */
const readable = (recordUuid: string) =>
  waitFor(async () => (await t.platform.store.readAll({ maxCount: 100_000 })).some((e) => e.streamId === `record-${recordUuid}`), 5_000, 'log readable');

describe('outbound safety at the API', () => {
  it.each(['http://127.0.0.1/in', 'http://[::1]/in', 'http://[::ffff:127.0.0.1]/in', 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/in', 'http://localhost:8080/in', 'http://2130706433/in'])(
    'refuses %s on create and on update, naming the url',
    async (url) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: owner.headers, payload: { ...body, url } });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ type: 'INVALID_VALUE' });
      expect(res.json().errors[0].message).toMatch(/^body\.url: refused: /);
      expect(res.json().errors[0].correctionSuggestion).toMatch(/WEBHOOK_ALLOWED_HOSTS/);
      const ok = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: owner.headers, payload: { ...body, url: 'https://93.184.216.34/in' } });
      expect(ok.statusCode).toBe(201);
      const put = await t.app.inject({ method: 'PUT', url: `/api/v2/webhooks/${ok.json().data.uuid}`, headers: owner.headers, payload: { url } });
      expect(put.statusCode).toBe(400);
      expect(put.json().errors[0].message).toMatch(/^body\.url: refused: /);
    },
  );

  it('checks the address again on every attempt, and connects to the address it checked (DNS rebinding)', async () => {
    // rebind.test is unknown to the system resolver: the first attempt reaches the receiver only
    // because the connection uses the address the guard resolved; from the next lookup on, the
    // name has "moved" to 10.0.0.1 (moved by the lookup itself: moving it once the receiver saw
    // the first attempt raced the 50 ms retry on a busy machine).
    const answers = ['127.0.0.1'];
    const guard = makeUrlGuard({ allowedHosts: ['127.0.0.1'], lookup: async () => [{ address: answers.shift() ?? '10.0.0.1', family: 4 }] });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v2/webhooks',
      headers: owner.headers,
      payload: { ...body, url: `http://rebind.test:${rx.port}/rebind`, retryBackoffMs: 50, maxRetries: 1 },
    });
    expect(created.statusCode, created.body).toBe(201);
    const uuid = created.json().data.uuid;
    rx.answer(() => ({ status: 503 }));
    const lead = await recordRoutes(t.app, t.platform.store, owner, 'lead').create({ n: 1 });
    await readable(lead.recordUuid);
    // Reactors are off: the replay route enqueues the delivery.
    const replay = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${uuid}/replay`, headers: owner.headers, payload: {} });
    expect(replay.json().data).toMatchObject({ enqueued: 1, truncated: false });

    const dispatcher = startDispatcher({ db: t.platform.db, guard, log: t.app.log, timeoutMs: 1000, concurrency: 2, pollMs: 30, maxBackoffMs: 1000, rateLimitMax: 100, rateLimitWindowMs: 1000 });
    try {
      await waitFor(() => rx.on('/rebind').length === 1, 5_000, 'first attempt');
      const [row] = await waitFor(
        async () => {
          const rows = await t.platform.db.query<{ status: string; attempts: number; last_error: string }>('select status, attempts, last_error from webhook_deliveries where webhook_uuid = $1', [uuid]);
          return rows[0]?.status === 'failed' ? rows : null;
        },
        5_000,
        'parked',
      );
      expect(row).toMatchObject({ status: 'failed', attempts: 2 });
      expect(row!.last_error).toMatch(/^refused: host rebind.test resolves to 10\.0\.0\.1, a private address/);
      expect(rx.on('/rebind')).toHaveLength(1);
      expect(rx.on('/rebind')[0]!.headers.host).toBe(`rebind.test:${rx.port}`);
      expect(new Webhook(Buffer.from('safety-secret'), { format: 'raw' }).verify(rx.on('/rebind')[0]!.body, rx.on('/rebind')[0]!.headers as Record<string, string>)).toBeTruthy();
    } finally {
      await dispatcher.stop();
    }
  });

  it('rate-limits each webhook: at most WEBHOOK_RATE_LIMIT_MAX attempts in any window, and nothing is lost', async () => {
    const guard = makeUrlGuard({ allowedHosts: ['127.0.0.1'] });
    const created = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: owner.headers, payload: { ...body, topic: 'record.burst.created', url: 'https://93.184.216.34/x' } });
    const uuid = created.json().data.uuid;
    // Created on a public address, then pointed at the receiver directly in the read model (the API refuses 127.0.0.1 here).
    await t.platform.db.query('update rm_webhooks set url = $2 where webhook_uuid = $1', [uuid, `${rx.url}/burst`]);
    rx.answer(() => ({ status: 200 }));
    const records = recordRoutes(t.app, t.platform.store, owner, 'burst');
    let last = '';
    for (let i = 0; i < 6; i++) last = (await records.create({ i })).recordUuid;
    await readable(last);
    await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/${uuid}/replay`, headers: owner.headers, payload: {} });
    const windowMs = 400;
    const dispatcher = startDispatcher({ db: t.platform.db, guard, log: t.app.log, timeoutMs: 1000, concurrency: 8, pollMs: 30, maxBackoffMs: 1000, rateLimitMax: 2, rateLimitWindowMs: windowMs });
    try {
      await waitFor(
        async () => (await t.platform.db.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where webhook_uuid = $1 and status = 'succeeded'`, [uuid]))[0]!.n === 6,
        10_000,
        'six deliveries',
      );
    } finally {
      await dispatcher.stop();
    }
    const starts = (
      await t.platform.db.query<{ started_at: number }>(
        'select a.started_at from webhook_delivery_attempts a join webhook_deliveries d using (delivery_uuid) where d.webhook_uuid = $1 order by a.started_at',
        [uuid],
      )
    ).map((r) => r.started_at);
    expect(starts).toHaveLength(6);
    // Any three consecutive attempts span at least one window: never more than two per window.
    for (let i = 2; i < starts.length; i++) expect(starts[i]! - starts[i - 2]!).toBeGreaterThanOrEqual(windowMs);
    expect(starts[5]! - starts[0]!).toBeGreaterThanOrEqual(2 * windowMs);
    expect(rx.on('/burst')).toHaveLength(6);
  });
});
