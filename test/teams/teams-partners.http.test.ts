import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { aRecord, anObjectWith } from '../records/records-fixtures.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
let t: TestApp;
let admin: TestTenant;
let user: TestTenant;
let other: TestTenant;

const call = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) => t.app.inject({ method, url: `/api/v2${url}`, headers, payload });
const sub = (prefix = 'co') => `${prefix}-${randomBytes(4).toString('hex')}`;
function errorOf(res: LightMyRequestResponse, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toMatchObject({ status, requestId: res.headers['x-request-id'] });
  return res.json();
}

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
  user = await joinCompany(t.app, admin, { role: 'USER' });
  other = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

describe('teams', () => {
  it('create, list, read, update, delete', async () => {
    const created = await call('POST', '/teams', admin.headers, { name: 'Sales', description: 'The sales team', scopes: ['members:read'] });
    expect(created.statusCode).toBe(201);
    const team = created.json().data;
    expect(team).toMatchObject({ name: 'Sales', description: 'The sales team', scopes: ['members:read'], members: [], createdByUuid: admin.userUuid, revision: 0 });

    await call('POST', '/teams', admin.headers, { name: 'Accounts' });
    const list = (await call('POST', '/teams/index', user.headers, {})).json();
    expect(list.total).toBe(2);
    expect(list.data.map((x: { name: string }) => x.name)).toEqual(['Accounts', 'Sales']);

    const updated = await call('PUT', `/teams/${team.uuid}`, admin.headers, { name: 'Sales EMEA', scopes: [] });
    expect(updated.json().data).toMatchObject({ name: 'Sales EMEA', description: 'The sales team', scopes: [], revision: 1 });
    expect((await call('GET', `/teams/${team.uuid}`, user.headers)).json().data.name).toBe('Sales EMEA');
    errorOf(await call('POST', '/teams', admin.headers, { name: 'x', scopes: ['not-a-scope'] }), 400);

    expect((await call('DELETE', `/teams/${team.uuid}`, admin.headers)).json()).toEqual({ message: 'deleted', data: team.uuid });
    errorOf(await call('GET', `/teams/${team.uuid}`, admin.headers), 404);
    errorOf(await call('PUT', `/teams/${team.uuid}`, admin.headers, { name: 'Back' }), 404);
    errorOf(await call('DELETE', `/teams/${team.uuid}`, admin.headers), 404);
    expect((await call('POST', '/teams/index', admin.headers, {})).json().total).toBe(1);
  });

  it('index: query filters by name, contains, case-insensitive; total and pages count what matched (issue 32, item 6)', async () => {
    const company = await signUpWithCompany(t.app);
    for (const name of ['Sales EMEA', 'Accounts', 'Inside sales', 'Support']) expect((await call('POST', '/teams', company.headers, { name })).statusCode).toBe(201);
    const names = async (body: object) => {
      const res = (await call('POST', '/teams/index', company.headers, body)).json();
      return { total: res.total, names: res.data.map((x: { name: string }) => x.name) };
    };
    expect(await names({ query: 'sales' })).toEqual({ total: 2, names: ['Inside sales', 'Sales EMEA'] });
    expect(await names({ query: 'SALES', limit: 1, page: 1 })).toEqual({ total: 2, names: ['Sales EMEA'] });
    expect(await names({ query: 'port' })).toEqual({ total: 1, names: ['Support'] });
    // The query is text, not a pattern.
    expect(await names({ query: '%' })).toEqual({ total: 0, names: [] });
    expect(await names({ query: 'nothing like it' })).toEqual({ total: 0, names: [] });
    expect((await names({})).total).toBe(4);
  });

  it('members: only members of the company; a member holds the team scopes at once', async () => {
    const team = (await call('POST', '/teams', admin.headers, { name: 'Editors', scopes: ['teams:write', 'company-settings:write'] })).json().data;
    errorOf(await call('POST', '/teams', user.headers, { name: 'Nope' }), 403);

    const joined = await call('PUT', `/teams/${team.uuid}/users/${user.userUuid}`, admin.headers);
    expect(joined.json().data.members).toEqual([expect.objectContaining({ uuid: user.userUuid, email: user.email })]);
    expect((await call('PUT', `/teams/${team.uuid}/users/${user.userUuid}`, admin.headers)).json().data.members).toHaveLength(1);
    errorOf(await call('PUT', `/teams/${team.uuid}/users/${other.userUuid}`, admin.headers), 404);

    expect((await call('GET', '/auth/me', user.headers)).json().data.scopes.sort()).toEqual(['company-settings:write', 'teams:write']);
    expect((await call('POST', '/teams', user.headers, { name: 'Made by a USER' })).statusCode).toBe(201);
    expect((await call('PUT', `/companies/${admin.companyUuid}/settings`, user.headers, { accentColor: '#abcdef' })).statusCode).toBe(200);

    expect((await call('DELETE', `/teams/${team.uuid}/users/${user.userUuid}`, admin.headers)).json().data.members).toEqual([]);
    expect(errorOf(await call('POST', '/teams', user.headers, { name: 'Again' }), 403).scopes).toEqual(['teams:write']);
    errorOf(await call('DELETE', `/teams/${team.uuid}/users/${user.userUuid}`, admin.headers), 404);

    await call('PUT', `/teams/${team.uuid}/users/${user.userUuid}`, admin.headers);
    expect((await call('POST', '/teams', user.headers, { name: 'Once more' })).statusCode).toBe(201);
    await call('DELETE', `/teams/${team.uuid}`, admin.headers);
    expect(errorOf(await call('POST', '/teams', user.headers, { name: 'Deleted team' }), 403).scopes).toEqual(['teams:write']);
  });

  it('a user removed from the company drops out of its teams', async () => {
    const leaver = await joinCompany(t.app, admin, { role: 'USER' });
    const team = (await call('POST', '/teams', admin.headers, { name: 'Leavers', scopes: ['teams:write'] })).json().data;
    await call('PUT', `/teams/${team.uuid}/users/${leaver.userUuid}`, admin.headers);
    await call('DELETE', `/companies/${admin.companyUuid}/users/${leaver.userUuid}`, admin.headers);
    expect((await call('GET', `/teams/${team.uuid}`, admin.headers)).json().data.members).toEqual([]);
    errorOf(await call('POST', '/teams', leaver.headers, { name: 'x' }), 403);
  });

  it('assigns records to a team (the team side)', async () => {
    const team = (await call('POST', '/teams', admin.headers, { name: 'Owners' })).json().data;
    const object = await anObjectWith(t.app, admin, { title: { type: 'string', format: 'text' } });
    const [r1, r2] = [(await aRecord(t.app, admin, object.name, { title: 'one' })).uuid, (await aRecord(t.app, admin, object.name, { title: 'two' })).uuid];
    expect((await call('PUT', `/teams/${team.uuid}/records/${r1}`, admin.headers)).json().data).toEqual([r1]);
    expect((await call('PUT', `/teams/${team.uuid}/records/${r2}`, admin.headers)).json().data).toEqual([r1, r2]);
    expect((await call('PUT', `/teams/${team.uuid}/records/${r1}`, admin.headers)).json().data).toEqual([r1, r2]);
    expect((await call('DELETE', `/teams/${team.uuid}/records/${r1}`, admin.headers)).json().data).toEqual([r2]);
    errorOf(await call('DELETE', `/teams/${team.uuid}/records/${r1}`, admin.headers), 404);
    expect((await call('GET', `/teams/${team.uuid}/records`, user.headers)).json().data).toEqual([r2]);
    errorOf(await call('GET', `/teams/${team.uuid}/records`, other.headers), 404);
  });
});

describe('partners', () => {
  it('a RESELLER creates companies it manages, lists them, and copies one', async () => {
    const reseller = await joinCompany(t.app, admin, { role: 'RESELLER' });
    const subdomain = sub('client');
    const created = await call('POST', '/partners/companies', reseller.headers, { name: 'Client One', subdomain });
    expect(created.statusCode).toBe(201);
    const client = created.json().data;
    expect(client).toMatchObject({ name: 'Client One', subdomain, managedBy: admin.companyUuid, copiedFrom: null });
    expect((await call('GET', `/companies/${client.uuid}`, reseller.headers)).json().data.uuid).toBe(client.uuid);
    errorOf(await call('GET', `/companies/${client.uuid}`, admin.headers), 404);

    // Give the managed company settings and a team, as its ADMIN (the reseller).
    await call('POST', `/auth/companies/${client.uuid}/select`, reseller.headers);
    await call('PUT', `/companies/${client.uuid}/settings`, reseller.headers, { primaryColor: '#123456', website: 'https://client.example' });
    await call('POST', '/teams', reseller.headers, { name: 'Support', description: 'first line', scopes: ['members:read'] });
    await call('POST', `/auth/companies/${admin.companyUuid}/select`, reseller.headers);

    const list = (await call('POST', '/partners/companies/index', reseller.headers, {})).json();
    expect(list.total).toBe(1);
    expect(list.data[0].uuid).toBe(client.uuid);

    const copied = await call('POST', `/partners/companies/${client.uuid}/copy`, reseller.headers, { name: 'Client Two', subdomain: sub('client') });
    expect(copied.statusCode).toBe(201);
    const copy = copied.json().data;
    expect(copy).toMatchObject({ name: 'Client Two', managedBy: admin.companyUuid, copiedFrom: client.uuid });
    expect((await call('POST', '/partners/companies/index', reseller.headers, {})).json().total).toBe(2);

    await call('POST', `/auth/companies/${copy.uuid}/select`, reseller.headers);
    expect((await call('GET', '/webhooks/me', reseller.headers)).json().data).toMatchObject({ uuid: copy.uuid, name: 'Client Two', primaryColor: '#123456', website: 'https://client.example' });
    const teams = (await call('POST', '/teams/index', reseller.headers, {})).json().data;
    expect(teams.map((x: { name: string; description: string; scopes: string[]; members: unknown[] }) => [x.name, x.description, x.scopes, x.members])).toEqual([['Support', 'first line', ['members:read'], []]]);
  });

  it('another reseller company sees none of them', async () => {
    const otherReseller = await joinCompany(t.app, other, { role: 'RESELLER' });
    expect((await call('POST', '/partners/companies/index', otherReseller.headers, {})).json()).toMatchObject({ total: 0, data: [] });
  });
});
