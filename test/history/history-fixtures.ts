import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { joinCompany, signUp, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObject, aProperty, call, data } from '../schema/schema-fixtures.js';

export const SUPER_EMAIL = 'root@history.test';

/** The app with what every resource kind needs: files on a temporary disk, app secrets, loopback webhooks, a SUPER_ADMIN. */
export async function startHistoryApp(): Promise<TestApp & { done(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'history-'));
  const t = await startTestApp({
    DATA_DIR: dataDir,
    REACTORS_ENABLED: 'false',
    PASSWORD_SCRYPT_LOG_N: '10',
    SUPER_ADMIN_EMAILS: SUPER_EMAIL,
    APPS_SECRETS_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
  });
  return {
    ...t,
    async done() {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A verified SUPER_ADMIN with `company` selected (test/apps/apps-fixtures.ts does the same for its own e-mail). */
export async function superAdmin(t: TestApp, company: TestTenant): Promise<TestTenant> {
  const root = await signUp(t.app, { email: SUPER_EMAIL });
  const dev = await joinCompany(t.app, company, { role: 'DEVELOPER' });
  const outbox = (await data(t.app, dev, 'GET', '/api/v2/dev/mail')) as { to: string; text: string }[];
  const token = /token: (\S+)$/m.exec(outbox.find((m) => m.to === SUPER_EMAIL)!.text)![1];
  expect((await call(t.app, null, 'POST', '/api/v2/auth/verify', { token })).status).toBe(200);
  expect((await call(t.app, root, 'POST', `/api/v2/auth/companies/${company.companyUuid}/select`)).status).toBe(200);
  return { ...root, companyUuid: company.companyUuid };
}

/** A ticket object with a title and a status. */
export async function ticketObject(t: TestApp, who: TestTenant) {
  const o = await anObject(t.app, who);
  await aProperty(t.app, who, o.uuid, { name: 'title', type: 'string', format: 'text' });
  await aProperty(t.app, who, o.uuid, { name: 'status', type: 'string', format: 'text' });
  return o as { uuid: string; name: string };
}

/** An approved public app made by `maker`, reviewed by `root`, with a COMPANY setting `region` and a SECRET `apiKey`. */
export async function approvedApp(t: TestApp, maker: TestTenant, root: TestTenant) {
  const created = await data(t.app, maker, 'POST', '/api/v2/apps/public', { label: `History ${randomBytes(3).toString('hex')}` });
  const settingsSchema = [
    { name: 'region', label: 'Region', type: 'SINGLE_SELECT', options: [{ value: 'eu', label: 'EU' }, { value: 'us', label: 'US' }], required: true },
    { name: 'limit', label: 'Limit', type: 'NUMBER', default: 10 },
    { name: 'apiKey', label: 'API key', type: 'SECRET' },
  ];
  await data(t.app, maker, 'PUT', `/api/v2/apps/public/${created.uuid}`, { label: created.label, category: 'CRM', settingsSchema });
  await data(t.app, maker, 'POST', `/api/v2/apps/public/${created.uuid}/submit`, {});
  await data(t.app, root, 'POST', `/api/v2/apps/public/${created.uuid}/review`, { outcome: 'APPROVE', feedback: 'ok' });
  return created.uuid as string;
}

export { signUpWithCompany, joinCompany };

/** One step of a resource's life: what it does, and whether the GET still answers after it. */
export interface Step {
  type: string;
  act: () => Promise<unknown>;
  /** The GET answers 404 after it (a deleted form, view, webhook or saved filter): nothing to capture. */
  gone?: boolean;
}

/**
 * Runs the steps and, after each, captures the GET's answer at that revision (the revision is the
 * history's newest entry). Returns the answers by revision.
 */
export async function liveThrough(t: TestApp, who: TestTenant, getUrl: string, historyUrl: string, steps: Step[]) {
  const captured = new Map<number, unknown>();
  for (const step of steps) {
    await step.act();
    const [newest] = (await data(t.app, who, 'GET', `${historyUrl}?limit=1`)) as { revision: number; type: string }[];
    expect(newest!.type).toBe(step.type);
    if (step.gone) expect((await call(t.app, who, 'GET', getUrl)).status).toBe(404);
    else captured.set(newest!.revision, await data(t.app, who, 'GET', getUrl));
  }
  return captured;
}

/** asOf at every captured revision answers what the GET answered then. */
export async function expectAsOfEqualsCaptured(t: TestApp, who: TestTenant, getUrl: string, captured: Map<number, unknown>) {
  const sep = getUrl.includes('?') ? '&' : '?';
  for (const [revision, then] of captured) {
    const res = await call(t.app, who, 'GET', `${getUrl}${sep}asOf=${revision}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data, `asOf=${revision}`).toEqual(then);
  }
}
