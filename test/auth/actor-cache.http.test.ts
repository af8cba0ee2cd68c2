import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/tokens.js';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// The actor cache (src/auth/actor-cache.ts): this process sees its own changes at once; a change
// made behind its back (another server process, here a direct write) within AUTH_CACHE_MS.
const CACHE_MS = 400;
let t: TestApp;
let admin: TestTenant;

beforeAll(async () => {
  t = await startTestApp({ AUTH_CACHE_MS: String(CACHE_MS) });
  admin = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/v2/webhooks/me', headers });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the actor cache', () => {
  it('serves a session revoked behind its back for at most AUTH_CACHE_MS', async () => {
    const member = await joinCompany(t.app, admin, { role: 'USER' });
    expect((await me(member.headers)).statusCode).toBe(200);
    const started = Date.now();
    await t.platform.db.query('update sessions set revoked_at = $2 where token_hash = $1', [hashToken(member.token), Date.now()]);
    // Cached: another process's revocation is not seen yet...
    if (Date.now() - started < CACHE_MS / 2) expect((await me(member.headers)).statusCode).toBe(200);
    await sleep(CACHE_MS + 50);
    // ...and is after the bound.
    expect((await me(member.headers)).statusCode).toBe(401);
  });

  it('sees this process’s own changes at once: removal from the company, then sign-out', async () => {
    const member = await joinCompany(t.app, admin, { role: 'USER' });
    expect((await me(member.headers)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v2/companies/${admin.companyUuid}/users/${member.userUuid}`, headers: admin.headers })).statusCode).toBe(200);
    expect((await me(member.headers)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/auth/logout', headers: member.headers })).statusCode).toBe(200);
    expect((await me(member.headers)).statusCode).toBe(401);
  });
});
