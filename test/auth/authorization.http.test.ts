import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeNames } from '../../src/auth/scopes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { joinCompany, signUp, signUpWithCompany, type TestTenant, type TestUser } from '../support/actors.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

let t: TestApp;
let adminA: TestTenant;
let userA: TestTenant;
let resellerA: TestTenant;
let adminB: TestTenant;
let memberB: TestTenant;
let loner: TestUser;
let teamA: string;
let teamB: string;

async function call(method: Method, url: string, headers: Record<string, string> = {}, payload?: object): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url: `/api/v2${url}`, headers, payload });
}

function expectErrorBody(res: LightMyRequestResponse, status: number) {
  expect(res.statusCode, `${res.statusCode} ${res.body}`).toBe(status);
  const body = res.json();
  expect(body.status).toBe(status);
  expect(body.requestId).toBe(res.headers['x-request-id']);
  expect(body.errors.length).toBeGreaterThan(0);
  for (const e of body.errors) {
    expect(e.message).toBeTruthy();
    expect(e.correctionSuggestion).toBeTruthy();
  }
  return body as { roles: string[]; scopes: string[]; errors: { type: string }[]; message: string };
}

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  adminA = await signUpWithCompany(t.app);
  userA = await joinCompany(t.app, adminA, { role: 'USER' });
  resellerA = await joinCompany(t.app, adminA, { role: 'RESELLER' });
  adminB = await signUpWithCompany(t.app);
  memberB = await joinCompany(t.app, adminB, { role: 'USER' });
  loner = await signUp(t.app);
  teamA = (await call('POST', '/teams', adminA.headers, { name: 'A team' })).json().data.uuid;
  teamB = (await call('POST', '/teams', adminB.headers, { name: 'B team' })).json().data.uuid;
});
afterAll(async () => t.close());

/** Every route of the identity area that needs a token, with what a plain USER of company A lacks (null: a USER may call it). */
const routes = (): { method: Method; url: string; body?: object; userLacks: { roles: string[]; scopes: string[] } | null; signedInOnly?: boolean }[] => {
  const A = adminA.companyUuid;
  const record = randomUUID();
  return [
    { method: 'POST', url: '/auth/logout', userLacks: null, signedInOnly: true },
    { method: 'GET', url: '/auth/me', userLacks: null, signedInOnly: true },
    { method: 'POST', url: `/auth/companies/${A}/select`, userLacks: null, signedInOnly: true },
    { method: 'POST', url: '/auth/verify/resend', userLacks: null, signedInOnly: true },
    { method: 'POST', url: '/companies', body: { name: 'X', subdomain: `x-${randomBytes(4).toString('hex')}` }, userLacks: null, signedInOnly: true },
    { method: 'POST', url: '/companies/index', body: {}, userLacks: null, signedInOnly: true },
    { method: 'GET', url: `/companies/${A}`, userLacks: null },
    { method: 'PUT', url: `/companies/${A}`, body: { name: 'Renamed' }, userLacks: { roles: ['ADMIN'], scopes: [] } },
    { method: 'GET', url: `/companies/${A}/settings`, userLacks: null },
    { method: 'PUT', url: `/companies/${A}/settings`, body: { website: 'https://a.example' }, userLacks: { roles: [], scopes: ['company-settings:write'] } },
    { method: 'POST', url: `/companies/${A}/users`, body: { userUuid: loner.userUuid, role: 'USER' }, userLacks: { roles: ['ADMIN'], scopes: [] } },
    { method: 'POST', url: `/companies/${A}/users/index`, body: {}, userLacks: { roles: [], scopes: ['members:read'] } },
    { method: 'PUT', url: `/companies/${A}/users/${userA.userUuid}`, body: { scopes: [] }, userLacks: { roles: ['ADMIN'], scopes: [] } },
    { method: 'DELETE', url: `/companies/${A}/users/${resellerA.userUuid}`, userLacks: { roles: ['ADMIN'], scopes: [] } },
    { method: 'GET', url: '/webhooks/me', userLacks: null },
    { method: 'POST', url: '/teams', body: { name: 'T' }, userLacks: { roles: [], scopes: ['teams:write'] } },
    { method: 'POST', url: '/teams/index', body: {}, userLacks: null },
    { method: 'GET', url: `/teams/${teamA}`, userLacks: null },
    { method: 'PUT', url: `/teams/${teamA}`, body: { description: 'd' }, userLacks: { roles: [], scopes: ['teams:write'] } },
    { method: 'DELETE', url: `/teams/${teamA}`, userLacks: { roles: [], scopes: ['teams:write'] } },
    { method: 'PUT', url: `/teams/${teamA}/users/${userA.userUuid}`, userLacks: { roles: [], scopes: ['teams:write'] } },
    { method: 'DELETE', url: `/teams/${teamA}/users/${userA.userUuid}`, userLacks: { roles: [], scopes: ['teams:write'] } },
    { method: 'GET', url: `/teams/${teamA}/records`, userLacks: null },
    { method: 'PUT', url: `/teams/${teamA}/records/${record}`, userLacks: { roles: [], scopes: ['teams:write'] } },
    { method: 'DELETE', url: `/teams/${teamA}/records/${record}`, userLacks: { roles: [], scopes: ['teams:write'] } },
    { method: 'POST', url: '/partners/companies', body: { name: 'P', subdomain: `p-${randomBytes(4).toString('hex')}` }, userLacks: { roles: ['RESELLER'], scopes: [] } },
    { method: 'POST', url: '/partners/companies/index', body: {}, userLacks: { roles: ['RESELLER'], scopes: [] } },
    { method: 'POST', url: `/partners/companies/${randomUUID()}/copy`, body: { name: 'C', subdomain: 'c-copy' }, userLacks: { roles: ['RESELLER'], scopes: [] } },
    { method: 'GET', url: '/dev/', userLacks: { roles: ['DEVELOPER'], scopes: [] } },
    { method: 'GET', url: '/dev/db-status', userLacks: { roles: ['DEVELOPER'], scopes: [] } },
    { method: 'GET', url: '/dev/mail', userLacks: { roles: ['DEVELOPER'], scopes: [] } },
    { method: 'POST', url: '/dev/stream-test', body: { count: 1 }, userLacks: { roles: ['DEVELOPER'], scopes: [] } },
  ];
};

describe('401 without a valid token, on every route that needs one', () => {
  it('no Authorization header: 401, WWW-Authenticate: Bearer, error body with requestId', async () => {
    for (const r of routes()) {
      const res = await call(r.method, r.url, {}, r.body);
      const body = expectErrorBody(res, 401);
      expect(res.headers['www-authenticate'], r.url).toBe('Bearer');
      expect(body).toMatchObject({ roles: [], scopes: [] });
    }
  });

  it('unknown or malformed token: 401 with error="invalid_token"', async () => {
    for (const authorization of [`Bearer ${randomBytes(32).toString('base64url')}`, 'Bearer not a token', 'Basic dXNlcjpwYXNz']) {
      for (const r of routes()) {
        const res = await call(r.method, r.url, { authorization }, r.body);
        expectErrorBody(res, 401);
        expect(res.headers['www-authenticate'], r.url).toBe('Bearer error="invalid_token"');
      }
    }
  });
});

describe('403 lists exactly the missing roles and scopes', () => {
  it('a USER without scopes, on every route it may not call', async () => {
    for (const r of routes().filter((r) => r.userLacks)) {
      const body = expectErrorBody(await call(r.method, r.url, userA.headers, r.body), 403);
      expect({ route: `${r.method} ${r.url}`, roles: body.roles, scopes: body.scopes }).toEqual({ route: `${r.method} ${r.url}`, ...r.userLacks });
    }
  });

  it('a signed-in user with no company: 403 naming every company role the route accepts', async () => {
    const body = expectErrorBody(await call('GET', '/webhooks/me', loner.headers), 403);
    expect(body.roles).toEqual(['USER', 'ADMIN', 'RESELLER', 'DEVELOPER']);
    expect(body.scopes).toEqual([]);
    expect(body.message).toBe('No company selected');
    const teams = expectErrorBody(await call('POST', '/teams', loner.headers, { name: 'x' }), 403);
    expect(teams).toMatchObject({ roles: ['USER', 'ADMIN', 'RESELLER', 'DEVELOPER'], scopes: ['teams:write'] });
  });

  it('a RESELLER holds a company role but not the scope', async () => {
    const body = expectErrorBody(await call('POST', '/teams', resellerA.headers, { name: 'x' }), 403);
    expect(body).toMatchObject({ roles: [], scopes: ['teams:write'] });
  });

  it('a granted scope lets a USER through', async () => {
    const scoped = await joinCompany(t.app, adminA, { role: 'USER', scopes: ['members:read'] });
    const res = await call('POST', `/companies/${adminA.companyUuid}/users/index`, scoped.headers, {});
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((m: { uuid: string }) => m.uuid)).toContain(scoped.userUuid);
  });
});

describe("another company's resources answer 404, like uuids that do not exist", () => {
  it('read, update and delete of company B by the ADMIN of company A', async () => {
    const B = adminB.companyUuid;
    const cases: [Method, string, object?][] = [
      ['GET', `/companies/${B}`],
      ['PUT', `/companies/${B}`, { name: 'Hijacked' }],
      ['GET', `/companies/${B}/settings`],
      ['PUT', `/companies/${B}/settings`, { website: 'https://evil.example' }],
      ['POST', `/companies/${B}/users`, { userUuid: adminA.userUuid, role: 'ADMIN' }],
      ['POST', `/companies/${B}/users/index`, {}],
      ['PUT', `/companies/${B}/users/${memberB.userUuid}`, { role: 'ADMIN' }],
      ['DELETE', `/companies/${B}/users/${memberB.userUuid}`],
      ['GET', `/teams/${teamB}`],
      ['PUT', `/teams/${teamB}`, { name: 'Hijacked' }],
      ['DELETE', `/teams/${teamB}`],
      ['PUT', `/teams/${teamB}/users/${adminA.userUuid}`],
      ['DELETE', `/teams/${teamB}/users/${memberB.userUuid}`],
      ['GET', `/teams/${teamB}/records`],
      ['PUT', `/teams/${teamB}/records/${randomUUID()}`],
      ['POST', `/auth/companies/${B}/select`],
    ];
    for (const [method, url, payload] of cases) {
      const foreign = expectErrorBody(await call(method, url, adminA.headers, payload), 404);
      expect(foreign.errors[0]!.type, `${method} ${url}`).toBe('NOT_FOUND');
      const missingUrl = url.replace(B, randomUUID()).replace(teamB, randomUUID());
      const missing = expectErrorBody(await call(method, missingUrl, adminA.headers, payload), 404);
      expect(missing.errors[0]!.type).toBe('NOT_FOUND');
    }
    const b = await call('GET', `/companies/${B}`, adminB.headers);
    expect(b.json().data.name).not.toBe('Hijacked');
    const team = await call('GET', `/teams/${teamB}`, adminB.headers);
    expect(team.json().data).toMatchObject({ name: 'B team', members: [] });
    const members = await call('POST', `/companies/${B}/users/index`, adminB.headers, {});
    expect(members.json().data.map((m: { uuid: string; role: string }) => [m.uuid, m.role]).sort()).toEqual(
      [
        [adminB.userUuid, 'ADMIN'],
        [memberB.userUuid, 'USER'],
      ].sort(),
    );
  });

  it('a reseller cannot copy a company it does not manage', async () => {
    const body = expectErrorBody(await call('POST', `/partners/companies/${adminB.companyUuid}/copy`, resellerA.headers, { name: 'Copy', subdomain: 'copy-of-b' }), 404);
    expect(body.errors[0]!.type).toBe('NOT_FOUND');
  });

  it('a body field naming another company is ignored: the tenant comes from the token', async () => {
    const created = await call('POST', '/teams', adminA.headers, { name: 'Mine', companyUuid: adminB.companyUuid, tenant: adminB.companyUuid });
    expect(created.statusCode).toBe(201);
    const uuid = created.json().data.uuid;
    expect((await call('GET', `/teams/${uuid}`, adminA.headers)).statusCode).toBe(200);
    expect((await call('GET', `/teams/${uuid}`, adminB.headers)).statusCode).toBe(404);
    const listB = await call('POST', '/teams/index', adminB.headers, { filters: [{ key: 'companyUuid', operator: 'eq', value: adminA.companyUuid }] });
    expect(listB.json().data.map((x: { uuid: string }) => x.uuid)).toEqual([teamB]);
  });
});

describe('a token stops working at once', () => {
  it('after removal from the company (for that company only)', async () => {
    const member = await joinCompany(t.app, adminA, { role: 'USER' });
    expect((await call('GET', '/webhooks/me', member.headers)).statusCode).toBe(200);
    expect((await call('DELETE', `/companies/${adminA.companyUuid}/users/${member.userUuid}`, adminA.headers)).statusCode).toBe(200);

    const refused = expectErrorBody(await call('GET', '/webhooks/me', member.headers), 403);
    expect(refused).toMatchObject({ message: 'Not a member of the selected company', roles: ['USER', 'ADMIN', 'RESELLER', 'DEVELOPER'], scopes: [] });
    expect(expectErrorBody(await call('GET', `/teams/${teamA}`, member.headers), 403).roles).toHaveLength(4);
    const me = await call('GET', '/auth/me', member.headers);
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toMatchObject({ selectedCompany: null, role: null, companies: [] });
    expectErrorBody(await call('POST', `/auth/companies/${adminA.companyUuid}/select`, member.headers), 404);

    const other = (await call('POST', '/companies', member.headers, { name: 'Own', subdomain: `own-${randomBytes(4).toString('hex')}` })).json().data.uuid;
    expect((await call('POST', `/auth/companies/${other}/select`, member.headers)).statusCode).toBe(200);
    expect((await call('GET', '/webhooks/me', member.headers)).json().data.uuid).toBe(other);
  });

  it('after logout, for every route', async () => {
    const member = await joinCompany(t.app, adminA, { role: 'ADMIN' });
    expect((await call('POST', '/auth/logout', member.headers)).statusCode).toBe(200);
    for (const r of routes()) expectErrorBody(await call(r.method, r.url, member.headers, r.body), 401);
  });
});

/** Every operation of the live OpenAPI document (so routes added later are covered too), with a concrete url. */
async function operations() {
  const doc = (await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json();
  return Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase() as Method,
      // A path parameter gets a value of its kind: an object name where the route takes one, else a uuid.
      url: path.replace('/api/v2', '').replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'objectName' ? 'nosuchobject' : randomUUID())),
      auth: op['x-auth'] as string | undefined,
      roles: op['x-roles'] as string[] | undefined,
      scopes: op['x-scopes'] as string[] | undefined,
    })),
  );
}

describe('every operation of the OpenAPI document', () => {
  it('that is not public answers 401 without a token', async () => {
    const ops = (await operations()).filter((op) => op.auth !== 'public');
    expect(ops.length).toBeGreaterThan(30);
    for (const op of ops) {
      const res = await call(op.method, op.url);
      expect(`${op.method} ${op.url} ${res.statusCode}`).toBe(`${op.method} ${op.url} 401`);
      expectErrorBody(res, 401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('with roles answers 403 to a user of no company, listing every declared role and scope', async () => {
    for (const op of (await operations()).filter((op) => op.roles)) {
      const body = expectErrorBody(await call(op.method, op.url, loner.headers), 403);
      expect({ op: `${op.method} ${op.url}`, roles: body.roles, scopes: body.scopes }).toEqual({ op: `${op.method} ${op.url}`, roles: op.roles, scopes: op.scopes });
    }
  });

  it('with roles answers a USER without scopes with exactly what it lacks (or lets it past auth)', async () => {
    for (const op of (await operations()).filter((op) => op.roles)) {
      const lacks = { roles: op.roles!.includes('USER') ? [] : op.roles, scopes: op.scopes };
      // A live stream a member may open (the inbox) would answer forever: its auth is checked in its own tests.
      if (op.url.endsWith('/stream') && lacks.roles!.length === 0 && lacks.scopes!.length === 0) continue;
      const res = await call(op.method, op.url, userA.headers);
      if (lacks.roles!.length === 0 && lacks.scopes!.length === 0) {
        expect(res.statusCode, `${op.method} ${op.url}`).not.toBe(403);
        continue;
      }
      const body = expectErrorBody(res, 403);
      expect({ op: `${op.method} ${op.url}`, roles: body.roles, scopes: body.scopes }).toEqual({ op: `${op.method} ${op.url}`, ...lacks });
    }
  });
});

describe('the OpenAPI document shows each route\'s roles and scopes', () => {
  it('every /api/v2 operation declares its auth', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json();
    const undeclared: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op['x-auth'] && !op['x-roles']) undeclared.push(`${method} ${path}`);
      }
    }
    expect(undeclared).toEqual([]);
    const put = doc.paths['/api/v2/companies/{uuid}'].put;
    expect(put).toMatchObject({ 'x-roles': ['ADMIN'], 'x-scopes': [], security: [{ bearer: [] }] });
    expect(put.description).toContain('Auth: roles ADMIN');
    expect(doc.paths['/api/v2/teams'].post).toMatchObject({ 'x-roles': ['USER', 'ADMIN', 'RESELLER', 'DEVELOPER'], 'x-scopes': ['teams:write'] });
    expect(doc.paths['/api/v2/auth/login'].post).toMatchObject({ 'x-auth': 'public', security: [] });
    expect(doc.paths['/api/v2/auth/me'].get).toMatchObject({ 'x-auth': 'signed-in', security: [{ bearer: [] }] });
  });

  it('docs/scopes.md lists exactly the scope catalogue', () => {
    const doc = readFileSync(resolve(import.meta.dirname, '../../docs/scopes.md'), 'utf8');
    const listed = [...doc.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...scopeNames].sort());
  });
});
