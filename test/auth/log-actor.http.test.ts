import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { forgetActorsHere } from '../../src/auth/actor-cache.js';
import { hashToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { bindLogActor, logActorMixin } from '../../src/http/log-actor.js';
import { openPlatform, type OpenedPlatform } from '../../src/platform.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { openTestDb } from '../support/test-db.js';

// The actor on log lines (src/http/log-actor.ts, ADR 0012): a pino mixin, not a child logger per
// request. A line of an authenticated request carries the tenant and the user, whether the
// session came from the actor cache or the database; no line carries a credential.
const logs: string[] = [];
let app: Awaited<ReturnType<typeof buildApp>>;
let platform: OpenedPlatform;
let admin: TestTenant;

beforeAll(async () => {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', RATE_LIMIT_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10' });
  platform = await openPlatform(config, { db: await openTestDb() });
  app = await buildApp({ config, db: platform.db, store: platform.store, logStream: { write: (line) => void logs.push(line) } });
  await app.ready();
  admin = await signUpWithCompany(app);
});
afterAll(async () => {
  await app.close();
  await platform.close();
});

const linesOf = (requestId: string) => logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.requestId === requestId);

describe('the actor on log lines', () => {
  it.each([
    ['read from the database', true],
    ['taken from the actor cache', false],
  ])('an authenticated request, its session %s, logs its tenant and user', async (_how, forget) => {
    if (forget) forgetActorsHere();
    const res = await app.inject({ method: 'GET', url: '/api/v2/webhooks/me', headers: admin.headers });
    expect(res.statusCode).toBe(200);
    const lines = linesOf(String(res.headers['x-request-id']));
    const completed = lines.find((l) => l.msg === 'request completed');
    expect(completed).toMatchObject({ tenant: admin.companyUuid, userUuid: admin.userUuid });
  });

  it('a refused token logs no actor', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v2/webhooks/me', headers: { authorization: `Bearer ${'x'.repeat(43)}` } });
    expect(res.statusCode).toBe(401);
    const lines = linesOf(String(res.headers['x-request-id']));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toHaveProperty('userUuid');
  });

  it('no line carries a token, its hash or a password', () => {
    const all = logs.join('\n');
    expect(all).toContain(admin.userUuid);
    for (const secret of [admin.token, hashToken(admin.token), admin.password]) expect(all).not.toContain(secret);
  });

  it('a child of the request logger carries the actor too, and a line’s own fields win', () => {
    const out: string[] = [];
    const root = pino({ mixin: logActorMixin }, { write: (line: string) => void out.push(line) });
    const request = root.child({ requestId: 'r1' });
    bindLogActor(request, { tenant: 't1', userUuid: 'u1' });
    request.child({ part: 'x' }).info({ tenant: 'own' }, 'hello');
    root.info('outside');
    const [inner, outer] = out.map((l) => JSON.parse(l));
    expect(inner).toMatchObject({ requestId: 'r1', part: 'x', tenant: 'own', userUuid: 'u1' });
    expect(outer).not.toHaveProperty('userUuid');
  });
});
