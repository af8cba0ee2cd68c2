import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { signUp } from '../support/actors.js';

// Long enough that a loaded CI machine stays inside one window while a test makes its attempts.
const WINDOW_MS = 8000;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', LOGIN_MAX_FAILURES: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '8', LOGIN_THROTTLE_WINDOW_MS: String(WINDOW_MS) });
});
afterAll(async () => t.close());

const login = (email: string, password: string, remoteAddress = '127.0.0.1') =>
  t.app.inject({ method: 'POST', url: '/api/v2/auth/login', payload: { email, password }, remoteAddress });

describe('login throttling', () => {
  it('429 after repeated failures for one account, even with the right password; lets it through after the window', async () => {
    const user = await signUp(t.app);
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await login(user.email, 'wrong password', `10.0.0.${i + 1}`)).statusCode);
    expect(codes).toEqual([401, 401, 401]);

    const locked = await login(user.email, user.password, '10.0.1.1');
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(locked.json()).toMatchObject({ status: 429, roles: [], scopes: [], requestId: locked.headers['x-request-id'] });
    expect(locked.json().errors[0].type).toBe('GENERAL');

    await new Promise((r) => setTimeout(r, WINDOW_MS + 100));
    const after = await login(user.email, user.password, '10.0.1.1');
    expect(after.statusCode).toBe(200);
    expect(after.json().data.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('a success clears the account count', async () => {
    const user = await signUp(t.app);
    for (let i = 0; i < 2; i++) expect((await login(user.email, 'wrong password', '10.0.2.1')).statusCode).toBe(401);
    expect((await login(user.email, user.password, '10.0.2.1')).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await login(user.email, 'wrong password', '10.0.2.1')).statusCode).toBe(401);
    expect((await login(user.email, user.password, '10.0.2.1')).statusCode).toBe(200);
  });

  it('throttles one address across accounts, known or not, with the same answers', async () => {
    const address = '10.0.3.1';
    const codes = [];
    for (let i = 0; i < 8; i++) codes.push((await login(`nobody-${i}@example.test`, 'whatever password', address)).statusCode);
    expect(codes).toEqual(Array(8).fill(401));
    const user = await signUp(t.app);
    expect((await login(user.email, user.password, address)).statusCode).toBe(429);
    expect((await login(user.email, user.password, '10.0.3.2')).statusCode).toBe(200);
  });

  it('an unknown account answers like a wrong password', async () => {
    const user = await signUp(t.app);
    const wrong = await login(user.email, 'wrong password', '10.0.4.1');
    const unknown = await login(`ghost-${Date.now()}@example.test`, 'wrong password', '10.0.4.2');
    expect(unknown.statusCode).toBe(wrong.statusCode);
    expect({ ...unknown.json(), requestId: '' }).toEqual({ ...wrong.json(), requestId: '' });
  });
});
