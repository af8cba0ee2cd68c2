import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/db.js';
import { openPlatform, type OpenedPlatform } from '../../src/platform.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { anObjectForHooks, recordRoutes } from '../support/record-routes.js';
import { openTestDb } from '../support/test-db.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';

/**
 * A server restart: the app, the event store and the reactors are closed and opened again; only
 * the database survives, as it does in production.
 */
const config = loadConfig({
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_ENABLED: 'false',
  PASSWORD_SCRYPT_LOG_N: '10',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
});

let db: Db;
let server: { platform: OpenedPlatform; app: FastifyInstance } | null = null;
let rx: Receiver;
let owner: TestTenant;

async function start() {
  // The database stays open across restarts: closing a platform must not close it.
  const platform = await openPlatform(config, { db: { ...db, close: async () => {} } });
  const app = await buildApp({ config, db: platform.db, store: platform.store });
  await app.ready();
  server = { platform, app };
  return server;
}

async function stop() {
  const s = server!;
  server = null;
  const started = Date.now();
  await s.app.close();
  await s.platform.close();
  return Date.now() - started;
}

beforeAll(async () => {
  db = await openTestDb();
  rx = await startReceiver();
  const { app } = await start();
  owner = await signUpWithCompany(app);
  for (const name of ['invoice', 'order', 'ticket']) await anObjectForHooks(app, owner, name);
});
afterAll(async () => {
  if (server) await stop();
  await db.close();
  await rx.close();
});

async function hook(path: string, topic: string, extra: Record<string, unknown> = {}) {
  const res = await server!.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: owner.headers, payload: { url: `${rx.url}${path}`, secret: 'restart-secret', topic, ...extra } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.uuid as string;
}

const statusOf = async (webhookUuid: string) =>
  (await db.query<{ status: string; attempts: number }>('select status, attempts from webhook_deliveries where webhook_uuid = $1', [webhookUuid]))[0];

describe('a server restart loses nothing', () => {
  it('an event appended while the server is down is delivered once it is up', async () => {
    await hook('/down', 'record.invoice.created');
    rx.answer(() => ({ status: 200 }));
    expect(await stop()).toBeLessThan(2000);
    // Written through another API instance, one without reactors, while this server is down.
    const other = await openPlatform(config, { db: { ...db, close: async () => {} } });
    const apiOnly = await buildApp({ config: { ...config, REACTORS_ENABLED: false }, db: other.db, store: other.store });
    await apiOnly.ready();
    const { recordUuid } = await recordRoutes(apiOnly, other.store, owner, 'invoice').create({ total: 10 });
    await apiOnly.close();
    await other.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.on('/down')).toHaveLength(0);
    await start();
    await waitFor(() => rx.on('/down').length === 1, 10_000, 'delivery after restart');
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.on('/down')).toHaveLength(1);
    expect(JSON.parse(rx.on('/down')[0]!.body).data.record.uuid).toBe(recordUuid);
  });

  it('a delivery waiting for its retry when the server stops is retried after the start, with the same webhook-id', async () => {
    const uuid = await hook('/retry', 'record.order.created', { retryBackoffMs: 600, maxRetries: 3 });
    rx.answer((i, req) => (req.path === '/retry' && i === 0 ? { status: 503 } : { status: 200 }));
    await recordRoutes(server!.app, server!.platform.store, owner, 'order').create({ n: 1 });
    await waitFor(() => rx.on('/retry').length === 1, 5_000, 'first attempt');
    await waitFor(async () => (await statusOf(uuid))?.attempts === 1, 5_000, 'attempt recorded');
    await stop();
    await new Promise((r) => setTimeout(r, 900));
    expect(rx.on('/retry')).toHaveLength(1);
    await start();
    await waitFor(async () => (await statusOf(uuid))?.status === 'succeeded', 10_000, 'retried after restart');
    const got = rx.on('/retry');
    expect(got).toHaveLength(2);
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    expect(got[1]!.body).toBe(got[0]!.body);
    expect(await statusOf(uuid)).toEqual({ status: 'succeeded', attempts: 2 });
  });

  it('a request in flight when the server stops is aborted, handed back uncounted, and sent after the start', async () => {
    const uuid = await hook('/inflight', 'record.ticket.created', { retryBackoffMs: 100 });
    rx.answer((i, req) => (req.path === '/inflight' && i === 0 ? 'hang' : { status: 200 }));
    await recordRoutes(server!.app, server!.platform.store, owner, 'ticket').create({ n: 1 });
    await waitFor(() => rx.on('/inflight').length === 1, 5_000, 'request in flight');
    expect(await stop()).toBeLessThan(1500);
    expect(await statusOf(uuid)).toEqual({ status: 'pending', attempts: 0 });
    const [row] = await db.query<{ locked_until: number | null }>('select locked_until from webhook_deliveries where webhook_uuid = $1', [uuid]);
    expect(row!.locked_until).toBeNull();
    await start();
    await waitFor(async () => (await statusOf(uuid))?.status === 'succeeded', 10_000, 'sent after restart');
    expect(rx.on('/inflight')).toHaveLength(2);
    expect(await statusOf(uuid)).toEqual({ status: 'succeeded', attempts: 1 });
  });
});
