import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { billingStream } from '../../aggregates/billing/billing.events.js';
import { sha256 } from '../../src/auth/sha256.js';
import { expectErrorBody, HOOK_SECRET, setStatus, signedHook, SUPER_EMAIL, superAdminOver } from './billing-fixtures.js';

let t: TestApp;
let smtp: SmtpReceiver;
let admin: TestTenant;
let other: TestTenant;
let root: TestTenant;
let user: TestTenant;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', SMTP_URL: smtp.url, SUPER_ADMIN_EMAILS: SUPER_EMAIL, BILLING_WEBHOOK_SECRET: HOOK_SECRET, APP_URL: 'https://app.example.test' });
  [admin, other] = await twoTenants(t.app);
  root = await superAdminOver(t.app, smtp, other);
  user = await joinCompany(t.app, admin, { role: 'USER' });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const inject = (o: InjectOptions) => t.app.inject(o);
const statusOf = async (who: TestTenant) => (await inject({ method: 'GET', url: '/api/v2/billing', headers: who.headers })).json().data;

describe('who may read and set a billing status (401 / 403 / 404 matrix)', () => {
  it('a company without a status is ACTIVE; any member reads its own', async () => {
    expect(await statusOf(user)).toMatchObject({ companyUuid: admin.companyUuid, status: 'ACTIVE', access: 'full', revision: -1 });
    expectErrorBody(await inject({ method: 'GET', url: '/api/v2/billing' }), 401);
  });

  it('only SUPER_ADMIN sets or reads another company\'s status', async () => {
    const url = `/api/v2/billing/companies/${admin.companyUuid}`;
    expectErrorBody(await inject({ method: 'PUT', url, payload: { status: 'SUSPENDED' } }), 401);
    expectErrorBody(await inject({ method: 'PUT', url, headers: admin.headers, payload: { status: 'SUSPENDED' } }), 403);
    expectErrorBody(await inject({ method: 'GET', url, headers: admin.headers }), 403);
    expectErrorBody(await inject({ method: 'GET', url }), 401);
    expect((await inject({ method: 'GET', url, headers: root.headers })).json().data).toMatchObject({ status: 'ACTIVE' });
    expect(await statusOf(admin)).toMatchObject({ status: 'ACTIVE' });
  });

  it('an unknown company is a 404, a TRIAL needs its end date (400), and nothing is written', async () => {
    const missing = randomUUID();
    expectErrorBody(await inject({ method: 'PUT', url: `/api/v2/billing/companies/${missing}`, headers: root.headers, payload: { status: 'SUSPENDED' } }), 404);
    expect(await t.platform.store.readStream(missing, billingStream(missing))).toEqual([]);
    const body = expectErrorBody(await inject({ method: 'PUT', url: `/api/v2/billing/companies/${admin.companyUuid}`, headers: root.headers, payload: { status: 'TRIAL' } }), 400);
    expect(body.errors[0]!.message).toContain('trialEndsAt');
  });

  it('another company\'s status stays its own (cross-tenant)', async () => {
    const [a, b] = await twoTenants(t.app);
    await setStatus(t.app, root, a.companyUuid, { status: 'PAST_DUE', reason: 'invoice 17' });
    expect(await statusOf(a)).toMatchObject({ status: 'PAST_DUE', reason: 'invoice 17', access: 'warn' });
    expect(await statusOf(b)).toMatchObject({ companyUuid: b.companyUuid, status: 'ACTIVE' });
  });

  it('the setup e-mail is for ADMINs: 401 without a token, 403 for a USER', async () => {
    expectErrorBody(await inject({ method: 'POST', url: '/api/v2/billing/setup-email' }), 401);
    expectErrorBody(await inject({ method: 'POST', url: '/api/v2/billing/setup-email', headers: user.headers }), 403);
  });
});

describe('the edge enforces the status', () => {
  it('PAST_DUE warns in a header and still writes', async () => {
    const c = await signUpWithCompany(t.app);
    await setStatus(t.app, root, c.companyUuid, { status: 'PAST_DUE' });
    const res = await inject({ method: 'POST', url: '/api/v2/teams', headers: c.headers, payload: { name: 'Still writing' } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-billing-status']).toBe('PAST_DUE');
    expect(String(res.headers['x-billing-warning'])).toContain('PAST_DUE');
    const read = await inject({ method: 'POST', url: '/api/v2/teams/index', headers: c.headers, payload: {} });
    expect(read.headers['x-billing-warning']).toBeDefined();
    await setStatus(t.app, root, c.companyUuid, { status: 'ACTIVE' });
    expect((await inject({ method: 'POST', url: '/api/v2/teams/index', headers: c.headers, payload: {} })).headers['x-billing-status']).toBeUndefined();
  });

  it('a TRIAL before its end writes; after it, it is read only with 402 naming the trial', async () => {
    const c = await signUpWithCompany(t.app);
    await setStatus(t.app, root, c.companyUuid, { status: 'TRIAL', trialEndsAt: Date.now() + 3_600_000 });
    const open = await inject({ method: 'POST', url: '/api/v2/teams', headers: c.headers, payload: { name: 'In trial' } });
    expect(open.statusCode).toBe(201);
    expect(open.headers['x-billing-status']).toBe('TRIAL');
    await setStatus(t.app, root, c.companyUuid, { status: 'TRIAL', trialEndsAt: Date.now() - 1 });
    const body = expectErrorBody(await inject({ method: 'POST', url: '/api/v2/teams', headers: c.headers, payload: { name: 'After trial' } }), 402);
    expect(body.message).toContain('TRIAL');
    expect(body.errors[0]!.message).toContain('trial ended');
    expect((await inject({ method: 'POST', url: '/api/v2/teams/index', headers: c.headers, payload: {} })).json().data.map((x: { name: string }) => x.name)).toEqual(['In trial']);
  });

  it('SUSPENDED: every write route of the OpenAPI document answers 402 with the error body, reads and sign-in work', async () => {
    const c = await signUpWithCompany(t.app);
    const teamRes = await inject({ method: 'POST', url: '/api/v2/teams', headers: c.headers, payload: { name: 'Before' } });
    const team = teamRes.json().data;
    const reseller = await joinCompany(t.app, c, { role: 'RESELLER' });
    const developer = await joinCompany(t.app, c, { role: 'DEVELOPER' });
    await setStatus(t.app, root, c.companyUuid, { status: 'SUSPENDED', reason: 'unpaid' });
    const doc = (await inject({ method: 'GET', url: '/api/v2/openapi.json' })).json() as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const walked: string[] = [];
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['post', 'put', 'patch', 'delete'].includes(method) || op['x-billing'] !== 'write') continue;
        const roles = op['x-roles'] as string[] | undefined;
        let who: TestTenant | null = null;
        if (op['x-auth'] === 'public') {
          if (!path.includes('{companyUuid}')) continue; // not a company's route
        } else if (op['x-auth'] === 'signed-in' || !roles) continue; // acts for no company
        else who = roles.includes('ADMIN') ? c : roles.includes('RESELLER') ? reseller : roles.includes('DEVELOPER') ? developer : null;
        if (op['x-auth'] !== 'public' && !who) continue; // SUPER_ADMIN only: operators pass
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'companyUuid' ? c.companyUuid : name === 'objectName' ? 'things' : /uuid|Uuid|from|to/.test(name) ? randomUUID() : 'x'));
        const multipart = Boolean((op.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.['multipart/form-data']);
        const res = await inject({
          method: method.toUpperCase() as 'POST',
          url,
          headers: { ...(who?.headers ?? {}), 'content-type': multipart ? 'multipart/form-data; boundary=x' : 'application/json' },
          payload: multipart ? '--x--\r\n' : '{}',
        });
        walked.push(`${method} ${path}`);
        const body = res.json();
        const named = op['x-auth'] === 'public' ? body.message === 'The company cannot take this request now' : String(body.message).includes('SUSPENDED');
        if (res.statusCode !== 402 || !named || body.requestId !== res.headers['x-request-id'] || !body.errors?.[0]?.correctionSuggestion) wrong.push(`${method.toUpperCase()} ${path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(walked.length).toBeGreaterThan(100);
    // Nothing was written: the team is as it was.
    const teams = await inject({ method: 'POST', url: '/api/v2/teams/index', headers: c.headers, payload: {} });
    expect(teams.statusCode).toBe(200);
    expect(teams.json().data.map((x: { uuid: string }) => x.uuid)).toEqual([team.uuid]);
    expect(teams.headers['x-billing-status']).toBe('SUSPENDED');
    // Reads, sign-in, the read-only POST queries and the way out work.
    expect((await inject({ method: 'POST', url: '/api/v2/auth/login', payload: { email: c.email, password: c.password } })).statusCode).toBe(200);
    expect((await inject({ method: 'GET', url: '/api/v2/auth/me', headers: c.headers })).statusCode).toBe(200);
    expect((await inject({ method: 'GET', url: `/api/v2/companies/${c.companyUuid}`, headers: c.headers })).statusCode).toBe(200);
    expect((await inject({ method: 'GET', url: `/api/v2/teams/${team.uuid}`, headers: c.headers })).statusCode).toBe(200);
    expect((await inject({ method: 'POST', url: '/api/v2/objects/index', headers: c.headers, payload: {} })).statusCode).toBe(200);
    expect((await inject({ method: 'POST', url: '/api/v2/events/index', headers: c.headers, payload: {} })).statusCode).toBe(200);
    expect(await statusOf(c)).toMatchObject({ status: 'SUSPENDED', access: 'read-only', reason: 'unpaid' });
    // Another company is untouched.
    expect((await inject({ method: 'POST', url: '/api/v2/teams', headers: other.headers, payload: { name: 'Other writes' } })).statusCode).toBe(201);
    // Back to ACTIVE: writes work again.
    await setStatus(t.app, root, c.companyUuid, { status: 'ACTIVE' });
    expect((await inject({ method: 'POST', url: '/api/v2/teams', headers: c.headers, payload: { name: 'After' } })).statusCode).toBe(201);
  }, 120_000);
});

describe('the setup e-mail', () => {
  it('goes out over SMTP with a one-time link whose token is kept only hashed; the link works once', async () => {
    const c = await signUpWithCompany(t.app);
    await setStatus(t.app, root, c.companyUuid, { status: 'SUSPENDED' });
    const sent = await inject({ method: 'POST', url: '/api/v2/billing/setup-email', headers: c.headers });
    expect(sent.statusCode, sent.body).toBe(202);
    const mail = await smtp.next(c.email, 'billing');
    const token = /billing\/setup\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
    expect(mail.text).toContain('https://app.example.test/billing/setup?token=');
    const kept = await t.platform.db.query<{ token_hash: string }>('select token_hash from billing_setup_tokens where tenant = $1', [c.companyUuid]);
    expect(kept.map((r) => r.token_hash)).toEqual([sha256(token)]);
    const used = await inject({ method: 'POST', url: '/api/v2/billing/setup', payload: { token } });
    expect(used.statusCode, used.body).toBe(200);
    expect(used.json().data).toMatchObject({ billing: { companyUuid: c.companyUuid, status: 'SUSPENDED' }, checkoutUrl: null });
    expectErrorBody(await inject({ method: 'POST', url: '/api/v2/billing/setup', payload: { token } }), 404);
    expectErrorBody(await inject({ method: 'POST', url: '/api/v2/billing/setup', payload: { token: 'x'.repeat(43) } }), 404);
    expectErrorBody(await inject({ method: 'POST', url: '/api/v2/billing/setup', payload: { token: 'no spaces allowed here at all' } }), 400);
  });

  it('a newer mail replaces the older link', async () => {
    const c = await signUpWithCompany(t.app);
    await inject({ method: 'POST', url: '/api/v2/billing/setup-email', headers: c.headers });
    const first = /token=([A-Za-z0-9_-]{43})/.exec((await smtp.next(c.email, 'billing')).text)![1]!;
    await inject({ method: 'POST', url: '/api/v2/billing/setup-email', headers: c.headers });
    const second = /token=([A-Za-z0-9_-]{43})/.exec((await smtp.next(c.email, 'billing')).text)![1]!;
    expect((await inject({ method: 'POST', url: '/api/v2/billing/setup', payload: { token: first } })).statusCode).toBe(404);
    expect((await inject({ method: 'POST', url: '/api/v2/billing/setup', payload: { token: second } })).statusCode).toBe(200);
  });
});

describe('the signed billing hook', () => {
  const change = (companyUuid: string, status: string) => ({ type: 'billing.status.changed', data: { companyUuid, status } });
  const events = (companyUuid: string) => t.platform.store.readStream(companyUuid, billingStream(companyUuid));

  it('a signed delivery sets the status; its replay changes nothing', async () => {
    const c = await signUpWithCompany(t.app);
    const id = `msg_${randomUUID()}`;
    const first = await inject(signedHook(change(c.companyUuid, 'SUSPENDED'), { id }));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toEqual({ applied: true });
    expect(await statusOf(c)).toMatchObject({ status: 'SUSPENDED' });
    await setStatus(t.app, root, c.companyUuid, { status: 'ACTIVE' });
    const replay = await inject(signedHook(change(c.companyUuid, 'SUSPENDED'), { id }));
    expect(replay.json().data).toEqual({ applied: false });
    expect(await statusOf(c)).toMatchObject({ status: 'ACTIVE' });
    expect((await events(c.companyUuid)).map((e) => [e.type, (e.data as { source: string }).source])).toEqual([['BillingStatusChanged', 'hook'], ['BillingStatusChanged', 'admin']]);
  });

  it('a forged, re-signed, altered or stale delivery is refused with 401 and changes nothing', async () => {
    const c = await signUpWithCompany(t.app);
    const forged = signedHook(change(c.companyUuid, 'SUSPENDED'), { id: 'msg_forged', secret: `whsec_${Buffer.from('another-secret-of-32-bytes-long!').toString('base64')}` });
    expectErrorBody(await inject(forged), 401);
    const genuine = signedHook(change(c.companyUuid, 'ACTIVE'), { id: 'msg_altered' });
    expectErrorBody(await inject({ ...genuine, payload: JSON.stringify(change(c.companyUuid, 'SUSPENDED')) }), 401);
    expectErrorBody(await inject(signedHook(change(c.companyUuid, 'SUSPENDED'), { id: 'msg_stale', at: new Date(Date.now() - 10 * 60_000) })), 401);
    expectErrorBody(await inject({ method: 'POST', url: '/api/v2/billing/hook', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(change(c.companyUuid, 'SUSPENDED')) }), 401);
    expect(await events(c.companyUuid)).toEqual([]);
    expect(await statusOf(c)).toMatchObject({ status: 'ACTIVE', revision: -1 });
  });

  it('an older delivery than the last applied one changes nothing; an unknown company is 404', async () => {
    const c = await signUpWithCompany(t.app);
    const now = Date.now();
    expect((await inject(signedHook(change(c.companyUuid, 'PAST_DUE'), { id: 'msg_new', at: new Date(now) }))).json().data.applied).toBe(true);
    expect((await inject(signedHook(change(c.companyUuid, 'SUSPENDED'), { id: 'msg_old', at: new Date(now - 60_000) }))).json().data.applied).toBe(false);
    expect(await statusOf(c)).toMatchObject({ status: 'PAST_DUE' });
    expectErrorBody(await inject(signedHook(change(randomUUID(), 'SUSPENDED'), { id: 'msg_nobody' })), 404);
  });
});
