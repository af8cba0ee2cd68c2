import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openPlatform } from '../../src/platform.js';
import { joinCompany, signUp, type TestTenant } from '../support/actors.js';
import { openTestDb } from '../support/test-db.js';
import type { TestApp } from '../support/test-app.js';

export const SUPER_EMAIL = 'root@apps.test';

/** The app of test/support/test-app.ts, with its log captured line by line (for the canary checks). */
export async function startAppsApp(env: Record<string, string> = {}): Promise<TestApp & { logs: string[] }> {
  const logs: string[] = [];
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    RATE_LIMIT_ENABLED: 'false',
    PASSWORD_SCRYPT_LOG_N: '10',
    SUPER_ADMIN_EMAILS: SUPER_EMAIL,
    APPS_SECRETS_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
    ...env,
  });
  const db = await openTestDb();
  const platform = await openPlatform(config, { db });
  const app = await buildApp({ config, db: platform.db, store: platform.store, logStream: { write: (line) => void logs.push(line) } });
  await app.ready();
  return {
    app,
    platform,
    config,
    logs,
    async close() {
      await app.close();
      await platform.close();
    },
  };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** Every answer of the run, for the canary checks. */
export const answers: string[] = [];

export const caller = (app: FastifyInstance) => async (method: Method, url: string, headers: Record<string, string> = {}, payload?: unknown) => {
  const res = await app.inject({ method, url: `/api/v2${url}`, headers, payload: payload as Record<string, unknown> | undefined });
  answers.push(res.body);
  return res;
};

export function errorOf(res: LightMyRequestResponse, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ status, requestId: res.headers['x-request-id'] });
  expect(body.errors.length).toBeGreaterThan(0);
  for (const e of body.errors) expect(e.correctionSuggestion).toEqual(expect.any(String));
  return body;
}

/** A verified SUPER_ADMIN (SUPER_EMAIL) with `company` selected. */
export async function superAdmin(app: FastifyInstance, company: TestTenant): Promise<TestTenant> {
  const call = caller(app);
  const root = await signUp(app, { email: SUPER_EMAIL });
  const dev = await joinCompany(app, company, { role: 'DEVELOPER' });
  const outbox = (await call('GET', '/dev/mail', dev.headers)).json().data as { to: string; text: string }[];
  const token = /token: (\S+)$/m.exec(outbox.find((m) => m.to === SUPER_EMAIL)!.text)![1];
  expect((await call('POST', '/auth/verify', {}, { token })).statusCode).toBe(200);
  expect((await call('POST', `/auth/companies/${company.companyUuid}/select`, root.headers)).statusCode).toBe(200);
  return { ...root, companyUuid: company.companyUuid };
}

export const suffix = () => randomBytes(4).toString('hex');
