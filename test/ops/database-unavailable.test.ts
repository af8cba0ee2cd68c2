import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createPostgresDb } from '../../src/db/postgres.db.js';
import type { Db } from '../../src/db/db.js';
import { openPlatform, type OpenedPlatform } from '../../src/platform.js';
import { errorBodySchema } from '../../src/http/error-body.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { onPostgres, openTestDb } from '../support/test-db.js';

// A database that refuses or loses connections is a 503 with Retry-After, never a 500. The
// failing statements come from routes this test adds to the real app (no such route exists).

/** A loopback port nothing listens on: taken from the system, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

let app: FastifyInstance;
let platform: OpenedPlatform;
let refused: Db;
const limitedRole = `platform_limited_${process.pid}`;
let limited: Db | undefined;

beforeAll(async () => {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false' });
  platform = await openPlatform(config, { db: await openTestDb() });
  app = await buildApp({ config, db: platform.db, store: platform.store });
  refused = createPostgresDb({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/nowhere` });
  if (onPostgres) {
    // A role allowed no connection at all: PostgreSQL answers it with too_many_connections.
    await platform.db.query(`create role ${limitedRole} login connection limit 0`);
    const url = new URL(process.env.DATABASE_URL!);
    url.username = limitedRole;
    limited = createPostgresDb({ connectionString: url.toString() });
  }
  app.get('/test/refused', async () => refused.query('select 1'));
  app.get('/test/too-many', async () => (limited ?? platform.db).query(`do $$ begin raise exception 'sorry, too many clients already' using errcode = '53300'; end $$`));
  app.get('/test/limited', async () => limited!.query('select 1'));
  app.get('/test/broken', async () => platform.db.query('select * from no_such_table_here'));
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await refused?.close();
  await limited?.close();
  if (onPostgres) await platform.db.query(`drop role if exists ${limitedRole}`);
  await platform?.close();
});

async function expectUnavailable(url: string) {
  const res = await app.inject({ method: 'GET', url, headers: { 'x-request-id': 'unavailable-1' } });
  expect(res.statusCode).toBe(503);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  const body = errorBodySchema.parse(res.json());
  expect(body).toMatchObject({ status: 503, requestId: 'unavailable-1' });
  expect(body.errors[0]!.type).toBe('PLATFORM_ERROR');
  expect(body.errors[0]!.correctionSuggestion).toMatch(/Retry-After/);
  // Nothing internal: no host, port, SQL state or stack.
  expect(res.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|53300|too many clients|stack/i);
}

describe('the database cannot take the statement', () => {
  it('a refused connection is a 503 with the error body and Retry-After', async () => {
    await expectUnavailable('/test/refused');
  });

  it('too_many_connections (SQLSTATE 53300) is a 503', async () => {
    await expectUnavailable('/test/too-many');
  });

  it.skipIf(!onPostgres)('a role over its connection limit on PostgreSQL is a 503', async () => {
    const caught = await limited!.query('select 1').catch((e: unknown) => e);
    expect((caught as { code?: string }).code).toBe('53300');
    await expectUnavailable('/test/limited');
  });

  it('a statement that fails for its own reasons is still a 500, not a 503', async () => {
    const res = await app.inject({ method: 'GET', url: '/test/broken' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
  });

  it('tells connection failures from other errors', () => {
    expect(isDatabaseUnavailable({ code: '08006' })).toBe(true);
    expect(isDatabaseUnavailable({ code: '57P03' })).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable({ code: '42P01' })).toBe(false);
    expect(isDatabaseUnavailable({ code: '23505' })).toBe(false);
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
