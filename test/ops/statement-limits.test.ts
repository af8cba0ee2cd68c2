import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createPostgresDb } from '../../src/db/postgres.db.js';
import { openPlatform, type OpenedPlatform } from '../../src/platform.js';
import { errorBodySchema } from '../../src/http/error-body.js';
import { newTestDatabaseUrl, onPostgres, openTestDb } from '../support/test-db.js';

// Item 5 of issue 20: no statement runs away. The slow statements come from routes this test
// adds to the real app (no such route exists in the server).

interface Running {
  app: FastifyInstance;
  platform: OpenedPlatform;
  seen: string[];
  url: string;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(env: Record<string, string>, dbUrl?: string): Promise<Running> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', ...env, ...(dbUrl ? { DATABASE_URL: dbUrl } : {}) });
  const platform = await openPlatform(config, dbUrl ? {} : { db: await openTestDb() });
  const app = await buildApp({ config, db: platform.db, store: platform.store });
  const seen: string[] = [];
  const db = platform.db;
  // The statement a request runs; the error code it met is kept for the test to read.
  const record = async (work: () => Promise<unknown>) => {
    try {
      await work();
      seen.push('done');
    } catch (err) {
      seen.push(String((err as { code?: string }).code));
      throw err;
    }
    return { ok: true };
  };
  app.get('/test/sleep/:ms', async (req) => record(() => db.query('select pg_sleep($1::float8 / 1000)', [Number((req.params as { ms: string }).ms)])));
  app.get('/test/sleep-tx/:ms', async (req) =>
    record(() => db.transaction((tx) => tx.query('select pg_sleep($1::float8 / 1000)', [Number((req.params as { ms: string }).ms)]))),
  );
  // Waits in JavaScript, then runs a statement: the client has left by then.
  app.get('/test/late/:ms', async (req) =>
    record(async () => {
      await sleep(Number((req.params as { ms: string }).ms));
      await db.query('select 1');
    }),
  );
  app.get('/test/cancelled', async () => record(() => db.query(`do $$ begin raise exception 'stopped' using errcode = '57014'; end $$`)));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return {
    app,
    platform,
    seen,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await platform.close();
    },
  };
}

/** Sends a GET and drops the connection after `ms`, before any answer. */
function leaveAfter(url: string, ms: number) {
  return new Promise<void>((resolve) => {
    const req = request(url);
    req.on('error', () => resolve());
    req.end();
    setTimeout(() => {
      req.destroy();
      resolve();
    }, ms);
  });
}

async function waitFor(check: () => Promise<boolean> | boolean, withinMs: number) {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await sleep(25);
  }
  return check();
}

describe('a cancelled statement', () => {
  let t: Running;
  beforeAll(async () => {
    t = await start({});
  });
  afterAll(async () => t?.close());

  it('answers 503 with the error body, a correction suggestion and Retry-After', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/cancelled', headers: { 'x-request-id': 'cancelled-1' } });
    expect(res.statusCode).toBe(503);
    const body = errorBodySchema.parse(res.json());
    expect(body).toMatchObject({ status: 503, requestId: 'cancelled-1' });
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]!.type).toBe('PLATFORM_ERROR');
    expect(body.errors[0]!.correctionSuggestion).toMatch(/Narrow the request/);
    expect(body.stackTrace).toBeUndefined();
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('is not started when its client has already gone', async () => {
    const before = t.seen.length;
    await leaveAfter(`${t.url}/test/late/400`, 100);
    expect(await waitFor(() => t.seen.length > before, 5000)).toBe(true);
    expect(t.seen[before]).toBe('57014');
  });
});

describe.skipIf(!onPostgres)('the statement time limit on PostgreSQL', () => {
  let url: string;
  let limited: Running;
  let unlimited: Running;
  let observer: ReturnType<typeof createPostgresDb>;
  const sleepers = async () =>
    Number(
      (
        await observer.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and query like '%pg_sleep%'`,
        )
      )[0]!.n,
    );

  beforeAll(async () => {
    url = await newTestDatabaseUrl();
    limited = await start({ STATEMENT_TIMEOUT_MS: '300' }, url);
    unlimited = await start({ STATEMENT_TIMEOUT_MS: '0' }, url);
    observer = createPostgresDb({ connectionString: url, max: 1 });
  });
  afterAll(async () => {
    await limited?.close();
    await unlimited?.close();
    await observer?.close();
  });

  it('runs every connection of the API pool with STATEMENT_TIMEOUT_MS', async () => {
    expect(await limited.platform.db.query('show statement_timeout')).toEqual([{ statement_timeout: '300ms' }]);
    expect(await unlimited.platform.db.query('show statement_timeout')).toEqual([{ statement_timeout: '0' }]);
  });

  it('cancels a statement past the limit: 503 with the error body, and no backend left running it', async () => {
    const started = Date.now();
    const res = await limited.app.inject({ method: 'GET', url: '/test/sleep/20000' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(res.statusCode).toBe(503);
    const body = errorBodySchema.parse(res.json());
    expect(body.errors[0]!.message).toMatch(/300 ms/);
    expect(limited.seen.at(-1)).toBe('57014');
    expect(await sleepers()).toBe(0);
  });

  it('cancels the running statement of a client that disconnects', async () => {
    const before = unlimited.seen.length;
    await leaveAfter(`${unlimited.url}/test/sleep/60000`, 500);
    // The cancel lands well before the statement could have ended on its own (60 s).
    expect(await waitFor(async () => (await sleepers()) === 0 && unlimited.seen.length > before, 10_000)).toBe(true);
    expect(unlimited.seen[before]).toBe('57014');
  });

  it('cancels the transaction of a client that disconnects, and rolls it back', async () => {
    const before = unlimited.seen.length;
    await leaveAfter(`${unlimited.url}/test/sleep-tx/60000`, 500);
    expect(await waitFor(async () => (await sleepers()) === 0 && unlimited.seen.length > before, 10_000)).toBe(true);
    expect(unlimited.seen[before]).toBe('57014');
    const [idle] = await observer.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
    );
    expect(idle!.n).toBe(0);
  });

  it('lets another request on the same pool run untouched when one client leaves', async () => {
    const other = unlimited.app.inject({ method: 'GET', url: '/test/sleep/1500' });
    await leaveAfter(`${unlimited.url}/test/sleep/60000`, 300);
    expect((await other).statusCode).toBe(200);
  });
});
