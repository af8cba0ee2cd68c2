import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { joinCompany, signUp, signUpWithCompany } from '../support/actors.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
});
afterAll(async () => t.close());

describe('auth core', () => {
  it('registers, logs in, answers me with the selected company', async () => {
    const owner = await signUpWithCompany(t.app, { companyName: 'Acme' });
    const login = await t.app.inject({ method: 'POST', url: '/api/v2/auth/login', payload: { email: owner.email, password: owner.password } });
    expect(login.statusCode).toBe(200);
    const { token, expiresAt, user } = login.json().data;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(expiresAt).toBeGreaterThan(Date.now());
    expect(user.selectedCompany).toBe(owner.companyUuid);
    expect(user.role).toBe('ADMIN');
    const me = await t.app.inject({ method: 'GET', url: '/api/v2/auth/me', headers: { authorization: `Bearer ${token}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toMatchObject({ uuid: owner.userUuid, email: owner.email, initials: 'TU', role: 'ADMIN', selectedCompany: owner.companyUuid });
    expect(me.json().data.companies).toEqual([expect.objectContaining({ uuid: owner.companyUuid, name: 'Acme', role: 'ADMIN' })]);
  });

  it('401 without a token, with WWW-Authenticate and the error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/auth/me' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toMatchObject({ status: 401, roles: [], scopes: [], requestId: res.headers['x-request-id'] });
  });

  it('dev routes are DEVELOPER-only: 403 lists the role', async () => {
    const owner = await signUpWithCompany(t.app);
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/dev/', headers: owner.headers });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, roles: ['DEVELOPER'], scopes: [] });
    const dev = await joinCompany(t.app, owner, { role: 'DEVELOPER' });
    const ok = await t.app.inject({ method: 'GET', url: '/api/v2/dev/', headers: dev.headers });
    expect(ok.statusCode).toBe(200);
  });

  it('logout revokes the token at once', async () => {
    const user = await signUp(t.app);
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/auth/logout', headers: user.headers })).statusCode).toBe(200);
    const after = await t.app.inject({ method: 'GET', url: '/api/v2/auth/me', headers: user.headers });
    expect(after.statusCode).toBe(401);
    expect(after.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });
});
