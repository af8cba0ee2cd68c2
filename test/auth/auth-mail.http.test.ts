import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { signUp, signUpWithCompany, bearer } from '../support/actors.js';
import { startSmtpReceiver, tokenIn, type SmtpReceiver } from '../support/smtp-receiver.js';

let t: TestApp;
let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', SMTP_URL: smtp.url, MAIL_FROM: 'Platform <no-reply@platform.test>', APP_URL: 'https://app.platform.test' });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const post = (url: string, payload?: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url: `/api/v2/auth${url}`, payload, headers });
const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/v2/auth/me', headers });

describe('e-mail verification over SMTP', () => {
  it('register sends a verification mail; its token verifies once', async () => {
    const user = await signUp(t.app);
    const mail = await smtp.next(user.email, 'Confirm');
    expect(mail.from).toContain('no-reply@platform.test');
    expect(mail.text).toContain('https://app.platform.test/verify-email?token=');
    expect((await me(user.headers)).json().data.emailVerified).toBe(false);

    const token = tokenIn(mail);
    const verified = await post('/verify', { token });
    expect(verified.statusCode).toBe(200);
    expect((await me(user.headers)).json().data.emailVerified).toBe(true);

    const again = await post('/verify', { token });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ status: 400, errors: [expect.objectContaining({ type: 'INVALID_VALUE' })], requestId: again.headers['x-request-id'] });
  });

  it('resend issues a new token and the old one stops working; verified accounts get 409', async () => {
    const user = await signUp(t.app);
    const first = tokenIn(await smtp.next(user.email, 'Confirm'));
    expect((await post('/verify/resend', undefined, user.headers)).statusCode).toBe(200);
    const second = tokenIn(await smtp.next(user.email, 'Confirm'));
    expect(second).not.toBe(first);
    expect((await post('/verify', { token: first })).statusCode).toBe(400);
    expect((await post('/verify', { token: second })).statusCode).toBe(200);
    const resend = await post('/verify/resend', undefined, user.headers);
    expect(resend.statusCode).toBe(409);
    expect(resend.json().status).toBe(409);
  });

  it('resend needs a token', async () => {
    const res = await post('/verify/resend');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });
});

describe('password reset over SMTP', () => {
  it('forgot answers the same for a known and an unknown address, and mails only the known one', async () => {
    const user = await signUp(t.app);
    const known = await post('/password/forgot', { email: user.email });
    const unknown = await post('/password/forgot', { email: `nobody-${Date.now()}@example.test` });
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual(known.json());
    const mail = await smtp.next(user.email, 'Reset');
    expect(mail.text).toContain('https://app.platform.test/reset-password?token=');
    expect(smtp.received.some((m) => m.to.some((to) => to.startsWith('nobody-')))).toBe(false);
  });

  it('reset sets the password, ends every session at once, and works only once', async () => {
    const owner = await signUpWithCompany(t.app);
    const second = (await post('/login', { email: owner.email, password: owner.password })).json().data.token as string;
    expect((await me(owner.headers)).statusCode).toBe(200);

    await post('/password/forgot', { email: owner.email });
    const token = tokenIn(await smtp.next(owner.email, 'Reset'));
    const reset = await post('/password/reset', { token, password: 'a brand new passphrase' });
    expect(reset.statusCode).toBe(200);

    for (const old of [owner.headers, bearer(second)]) {
      const res = await me(old);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, requestId: res.headers['x-request-id'] });
    }
    const oldPassword = await post('/login', { email: owner.email, password: owner.password });
    expect(oldPassword.statusCode).toBe(401);
    const login = await post('/login', { email: owner.email, password: 'a brand new passphrase' });
    expect(login.statusCode).toBe(200);
    expect(login.json().data.user.selectedCompany).toBe(owner.companyUuid);

    const reuse = await post('/password/reset', { token, password: 'yet another passphrase' });
    expect(reuse.statusCode).toBe(400);
    expect((await post('/login', { email: owner.email, password: 'yet another passphrase' })).statusCode).toBe(401);
  });

  it('a newer reset mail replaces the older token', async () => {
    const user = await signUp(t.app);
    await post('/password/forgot', { email: user.email });
    const older = tokenIn(await smtp.next(user.email, 'Reset'));
    await post('/password/forgot', { email: user.email });
    const newer = tokenIn(await smtp.next(user.email, 'Reset'));
    expect((await post('/password/reset', { token: older, password: 'another good passphrase' })).statusCode).toBe(400);
    expect((await post('/password/reset', { token: newer, password: 'another good passphrase' })).statusCode).toBe(200);
  });

  it('refuses a short new password with a validation body naming the field', async () => {
    const res = await post('/password/reset', { token: 'x'.repeat(43), password: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('body.password');
  });
});
