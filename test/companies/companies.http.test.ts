import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { joinCompany, signUp, signUpWithCompany, type TestTenant } from '../support/actors.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
let t: TestApp;
let a: TestTenant;
let b: TestTenant;

const call = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) => t.app.inject({ method, url: `/api/v2${url}`, headers, payload });
const sub = (prefix = 'co') => `${prefix}-${randomBytes(4).toString('hex')}`;
const settingsKeys = [
  'uuid', 'name', 'website', 'logo', 'favicon', 'customDomain', 'cookiePolicy', 'privacyPolicy', 'termsAndConditions', 'accentColor', 'primaryColor',
  'secondaryColor', 'companyColor', 'fontColor', 'twitterUrl', 'facebookUrl', 'youtubeUrl', 'instagramUrl', 'rightNavBarButtonTitle',
  'rightNavBarButtonLink', 'cssScript', 'jsHeadScript', 'jsBodyScript', 'rightNavBarButtonEnabled', 'updatedAt',
];

function errorOf(res: LightMyRequestResponse, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toMatchObject({ status, requestId: res.headers['x-request-id'] });
  return res.json();
}

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', SUPER_ADMIN_EMAILS: 'root@platform.test' });
  a = await signUpWithCompany(t.app, { companyName: 'Alpha' });
  b = await signUpWithCompany(t.app, { companyName: 'Beta' });
});
afterAll(async () => t.close());

describe('companies', () => {
  it('creates a company with a normalised subdomain; the creator is its ADMIN', async () => {
    const user = await signUp(t.app);
    const subdomain = sub('Gamma');
    const res = await call('POST', '/companies', user.headers, { name: '  Gamma Ltd ', subdomain });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ name: 'Gamma Ltd', subdomain: subdomain.toLowerCase(), managedBy: null, copiedFrom: null, revision: 0 });
    const me = (await call('GET', '/auth/me', user.headers)).json().data;
    expect(me.companies).toEqual([{ uuid: res.json().data.uuid, name: 'Gamma Ltd', subdomain: subdomain.toLowerCase(), role: 'ADMIN', scopes: [] }]);
  });

  it('validates the subdomain (400 INVALID_VALUE) and keeps it unique (409)', async () => {
    for (const bad of ['ab', '-abc', 'abc-', 'ab--cd', 'www', 'has space', 'ümlaut', 'a'.repeat(64)]) {
      const body = errorOf(await call('POST', '/companies', a.headers, { name: 'X', subdomain: bad }), 400);
      expect(body.errors[0].type, bad).toBe('INVALID_VALUE');
    }
    const taken = (await call('GET', `/companies/${b.companyUuid}`, b.headers)).json().data.subdomain;
    const conflict = errorOf(await call('POST', '/companies', a.headers, { name: 'X', subdomain: taken.toUpperCase() }), 409);
    expect(conflict.message).toContain('taken');
    errorOf(await call('PUT', `/companies/${a.companyUuid}`, a.headers, { subdomain: taken }), 409);
  });

  it('lists only the caller\'s companies, paginated', async () => {
    const extra = (await call('POST', '/companies', a.headers, { name: 'Alpha Two', subdomain: sub() })).json().data.uuid;
    const all = (await call('POST', '/companies/index', a.headers, {})).json();
    expect(all).toMatchObject({ total: 2, page: 0, lastPage: 0 });
    expect(all.data.map((c: { uuid: string }) => c.uuid).sort()).toEqual([a.companyUuid, extra].sort());
    const second = (await call('POST', '/companies/index', a.headers, { limit: 1, page: 1 })).json();
    expect(second).toMatchObject({ total: 2, page: 1, perPage: 1, lastPage: 1 });
    expect(second.data).toHaveLength(1);
    const first = (await call('POST', '/companies/index', a.headers, { limit: 1, page: 0 })).json();
    expect(first).toMatchObject({ page: 0, lastPage: 1 });
    expect([...first.data, ...second.data].map((c: { uuid: string }) => c.uuid).sort()).toEqual([a.companyUuid, extra].sort());
  });

  it('reads and updates its own company', async () => {
    const read = (await call('GET', `/companies/${a.companyUuid}`, a.headers)).json().data;
    expect(read).toMatchObject({ uuid: a.companyUuid, name: 'Alpha' });
    const newSub = sub('alpha');
    const updated = await call('PUT', `/companies/${a.companyUuid}`, a.headers, { name: 'Alpha Corp', subdomain: newSub });
    expect(updated.json().data).toMatchObject({ name: 'Alpha Corp', subdomain: newSub, revision: read.revision + 1 });
    expect(updated.json().data.updatedAt).toBeGreaterThanOrEqual(read.updatedAt);
  });

  it('settings: merges the 2.10 fields, ignores others, and shows them publicly by subdomain', async () => {
    const put = await call('PUT', `/companies/${b.companyUuid}/settings`, b.headers, {
      website: 'https://beta.example',
      primaryColor: '#112233',
      rightNavBarButtonEnabled: true,
      uuid: a.companyUuid,
      companyUuid: a.companyUuid,
      secretNote: 'not a setting',
    });
    expect(put.statusCode).toBe(200);
    await call('PUT', `/companies/${b.companyUuid}/settings`, b.headers, { fontColor: '#000000' });
    const mine = (await call('GET', `/companies/${b.companyUuid}/settings`, b.headers)).json().data;
    expect(mine).toMatchObject({ uuid: b.companyUuid, name: 'Beta', website: 'https://beta.example', primaryColor: '#112233', fontColor: '#000000', rightNavBarButtonEnabled: true });
    expect(Object.keys(mine).every((k) => settingsKeys.includes(k))).toBe(true);
    expect((await call('GET', `/companies/${a.companyUuid}/settings`, a.headers)).json().data.website).toBeUndefined();

    const subdomain = (await call('GET', `/companies/${b.companyUuid}`, b.headers)).json().data.subdomain;
    const pub = await call('GET', `/webpages/public/companySettings?subdomain=${subdomain}`);
    expect(pub.statusCode).toBe(200);
    expect(pub.json().data).toEqual(mine);
    expect((await call('GET', '/webhooks/me', b.headers)).json().data).toEqual(mine);
    errorOf(await call('GET', '/webpages/public/companySettings?subdomain=no-such-company'), 404);
    errorOf(await call('GET', '/webpages/public/companySettings'), 400);
  });

  it('a USER needs company-settings:write to change settings', async () => {
    const user = await joinCompany(t.app, b, { role: 'USER' });
    errorOf(await call('PUT', `/companies/${b.companyUuid}/settings`, user.headers, { logo: 'x' }), 403);
    await call('PUT', `/companies/${b.companyUuid}/users/${user.userUuid}`, b.headers, { scopes: ['company-settings:write'] });
    const res = await call('PUT', `/companies/${b.companyUuid}/settings`, user.headers, { logo: 'https://beta.example/logo.png' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.logo).toBe('https://beta.example/logo.png');
  });
});

describe('members', () => {
  it('adds an existing user by e-mail or uuid, lists, changes and removes', async () => {
    const owner = await signUpWithCompany(t.app);
    const u1 = await signUp(t.app);
    const u2 = await signUp(t.app);
    const added = await call('POST', `/companies/${owner.companyUuid}/users`, owner.headers, { email: u1.email.toUpperCase(), role: 'DEVELOPER', scopes: ['members:read'] });
    expect(added.statusCode).toBe(201);
    expect(added.json().data).toMatchObject({ uuid: u1.userUuid, role: 'DEVELOPER', scopes: ['members:read'] });
    await call('POST', `/companies/${owner.companyUuid}/users`, owner.headers, { userUuid: u2.userUuid, role: 'USER' });
    errorOf(await call('POST', `/companies/${owner.companyUuid}/users`, owner.headers, { userUuid: u2.userUuid, role: 'USER' }), 409);
    errorOf(await call('POST', `/companies/${owner.companyUuid}/users`, owner.headers, { email: 'nobody@nowhere.test', role: 'USER' }), 404);
    errorOf(await call('POST', `/companies/${owner.companyUuid}/users`, owner.headers, { userUuid: u2.userUuid, role: 'SUPER_ADMIN' }), 400);
    errorOf(await call('POST', `/companies/${owner.companyUuid}/users`, owner.headers, { userUuid: u2.userUuid, role: 'USER', scopes: ['no:such-scope'] }), 400);

    const list = (await call('POST', `/companies/${owner.companyUuid}/users/index`, owner.headers, {})).json();
    expect(list.total).toBe(3);
    expect(list.data.map((m: { uuid: string }) => m.uuid).sort()).toEqual([owner.userUuid, u1.userUuid, u2.userUuid].sort());

    const changed = await call('PUT', `/companies/${owner.companyUuid}/users/${u2.userUuid}`, owner.headers, { role: 'ADMIN', scopes: ['teams:write'] });
    expect(changed.json().data).toMatchObject({ role: 'ADMIN', scopes: ['teams:write'] });
    await call('POST', `/auth/companies/${owner.companyUuid}/select`, u2.headers);
    expect((await call('GET', '/auth/me', u2.headers)).json().data).toMatchObject({ role: 'ADMIN', scopes: ['teams:write'], selectedCompany: owner.companyUuid });

    expect((await call('DELETE', `/companies/${owner.companyUuid}/users/${u1.userUuid}`, owner.headers)).statusCode).toBe(200);
    errorOf(await call('DELETE', `/companies/${owner.companyUuid}/users/${u1.userUuid}`, owner.headers), 404);
    expect((await call('POST', `/companies/${owner.companyUuid}/users`, owner.headers, { userUuid: u1.userUuid, role: 'USER' })).statusCode).toBe(201);
  });

  it('keeps at least one ADMIN', async () => {
    const owner = await signUpWithCompany(t.app);
    const demote = errorOf(await call('PUT', `/companies/${owner.companyUuid}/users/${owner.userUuid}`, owner.headers, { role: 'USER' }), 409);
    expect(demote.message).toContain('ADMIN');
    errorOf(await call('DELETE', `/companies/${owner.companyUuid}/users/${owner.userUuid}`, owner.headers), 409);
    const second = await joinCompany(t.app, owner, { role: 'ADMIN' });
    expect((await call('DELETE', `/companies/${owner.companyUuid}/users/${owner.userUuid}`, second.headers)).statusCode).toBe(200);
  });
});

describe('SUPER_ADMIN', () => {
  it('is the verified owner of a SUPER_ADMIN_EMAILS address: sees every company', async () => {
    const root = await signUp(t.app, { email: 'root@platform.test' });
    expect((await call('GET', '/auth/me', root.headers)).json().data.role).toBeNull();
    errorOf(await call('GET', `/companies/${a.companyUuid}`, root.headers), 403);

    // No SMTP_URL in this app: a DEVELOPER reads the verification mail from the dev outbox.
    const dev = await joinCompany(t.app, a, { role: 'DEVELOPER' });
    const outbox = (await call('GET', '/dev/mail', dev.headers)).json().data as { to: string; subject: string; text: string }[];
    const mail = outbox.find((m) => m.to === 'root@platform.test');
    const token = /token: (\S+)$/m.exec(mail!.text)![1];
    expect((await call('POST', '/auth/verify', {}, { token })).statusCode).toBe(200);

    const list = (await call('POST', '/companies/index', root.headers, { limit: 100 })).json();
    expect(list.data.map((c: { uuid: string }) => c.uuid)).toEqual(expect.arrayContaining([a.companyUuid, b.companyUuid]));
    expect((await call('POST', `/auth/companies/${b.companyUuid}/select`, root.headers)).json().data).toMatchObject({ role: 'SUPER_ADMIN', selectedCompany: b.companyUuid });
    expect((await call('GET', `/companies/${b.companyUuid}`, root.headers)).statusCode).toBe(200);
    expect((await call('GET', '/dev/', root.headers)).statusCode).toBe(200);
    // Acting on a company other than the selected one works on that company, not the selected one.
    const members = (await call('POST', `/companies/${a.companyUuid}/users/index`, root.headers, {})).json().data;
    expect(members.map((m: { uuid: string }) => m.uuid)).toContain(a.userUuid);
    expect(members.map((m: { uuid: string }) => m.uuid)).not.toContain(b.userUuid);
  });
});
