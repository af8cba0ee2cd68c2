import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { signUp, type TestTenant } from '../support/actors.js';
import { tokenIn, type SmtpReceiver } from '../support/smtp-receiver.js';

export const SUPER_EMAIL = 'root-billing@example.test';
export const HOOK_SECRET = `whsec_${Buffer.from('billing-hook-secret-for-tests-32b').toString('base64')}`;

/** A verified SUPER_ADMIN (its verification mail read over SMTP) with `company` selected. */
export async function superAdminOver(app: FastifyInstance, smtp: SmtpReceiver, company: TestTenant): Promise<TestTenant> {
  const root = await signUp(app, { email: SUPER_EMAIL });
  const token = tokenIn(await smtp.next(SUPER_EMAIL, 'Confirm'));
  expect((await app.inject({ method: 'POST', url: '/api/v2/auth/verify', payload: { token } })).statusCode).toBe(200);
  expect((await app.inject({ method: 'POST', url: `/api/v2/auth/companies/${company.companyUuid}/select`, headers: root.headers })).statusCode).toBe(200);
  return { ...root, companyUuid: company.companyUuid };
}

export async function setStatus(app: FastifyInstance, root: TestTenant, companyUuid: string, body: Record<string, unknown>) {
  const res = await app.inject({ method: 'PUT', url: `/api/v2/billing/companies/${companyUuid}`, headers: root.headers, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** A billing hook delivery signed with `secret` at `at`. */
export function signedHook(body: unknown, o: { id: string; at?: Date; secret?: string }) {
  const payload = JSON.stringify(body);
  const at = o.at ?? new Date();
  const signature = new Webhook(o.secret ?? HOOK_SECRET).sign(o.id, at, payload);
  return {
    method: 'POST' as const,
    url: '/api/v2/billing/hook',
    headers: { 'content-type': 'application/json', 'webhook-id': o.id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
    payload,
  };
}

/** The spec's error body, with a correction for every detail. */
export function expectErrorBody(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ status, requestId: res.headers['x-request-id'] });
  expect(body.errors.length).toBeGreaterThan(0);
  for (const e of body.errors) expect(e.correctionSuggestion).toEqual(expect.any(String));
  return body as { message: string; errors: { message: string; correctionSuggestion: string }[] };
}
