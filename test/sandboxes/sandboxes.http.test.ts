import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObjectWith, aRecord, call, data, expectErrorBody, index } from '../records/records-fixtures.js';
import { aReadySandbox, inSandbox } from './sandbox-fixtures.js';

let t: TestApp;
let owner: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
  other = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

describe('developer sandboxes', () => {
  it('clones the company: same objects, records and uuids, the company identity kept; progress 100 once ready', async () => {
    const object = await anObjectWith(t.app, owner, { title: { type: 'string', format: 'text' } });
    const records = [];
    for (let i = 0; i < 5; i++) records.push(await aRecord(t.app, owner, object.name, { title: `t${i}` }));
    const sandbox = await aReadySandbox(t.app, owner, { name: 'first' });
    expect(sandbox).toMatchObject({ name: 'first', companyUuid: owner.companyUuid, status: 'ready', percentage: 100 });
    expect(sandbox.copiedEvents).toBeGreaterThan(5);

    const dev = inSandbox(owner, sandbox.uuid);
    const prodList = await index(t.app, owner, object.name, { limit: 100 });
    const sbList = await index(t.app, dev, object.name, { limit: 100 });
    expect(sbList.body.total).toBe(5);
    expect(sbList.body.data).toEqual(prodList.body.data);
    const one = await data(t.app, dev, 'GET', `/api/v2/records/${records[2]!.uuid}`);
    expect(one.properties).toMatchObject({ title: 't2' });
    // The company's identity answers the same with the header.
    const company = await data(t.app, dev, 'GET', `/api/v2/companies/${owner.companyUuid}`);
    expect(company.uuid).toBe(owner.companyUuid);

    // A write in the sandbox stays there.
    await data(t.app, dev, 'PUT', `/api/v2/${object.name}/${records[0]!.uuid}`, { properties: { title: 'sandboxed' } });
    expect((await data(t.app, dev, 'GET', `/api/v2/records/${records[0]!.uuid}`)).properties.title).toBe('sandboxed');
    expect((await data(t.app, owner, 'GET', `/api/v2/records/${records[0]!.uuid}`)).properties.title).toBe('t0');

    const listed = await call(t.app, owner, 'GET', '/api/v2/developer-sandboxes');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { uuid: string }) => s.uuid)).toContain(sandbox.uuid);
  });

  it('asOf a time before an update shows the old value', async () => {
    const object = await anObjectWith(t.app, owner, { title: { type: 'string', format: 'text' } });
    const record = await aRecord(t.app, owner, object.name, { title: 'old' });
    await new Promise((r) => setTimeout(r, 20));
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await data(t.app, owner, 'PUT', `/api/v2/${object.name}/${record.uuid}`, { properties: { title: 'new' } });
    const sandbox = await aReadySandbox(t.app, owner, { asOf: before });
    expect((await data(t.app, inSandbox(owner, sandbox.uuid), 'GET', `/api/v2/records/${record.uuid}`)).properties.title).toBe('old');
    expect((await data(t.app, owner, 'GET', `/api/v2/records/${record.uuid}`)).properties.title).toBe('new');
    // asOf a log position: the same, by the position of the create.
    const events = await data(t.app, owner, 'POST', '/api/v2/events/index', { filters: [{ key: 'stream', operator: 'equals', value: `record-${record.uuid}` }], limit: 10 });
    const created = (events as { type: string; position: number }[]).find((e) => e.type === 'RecordCreated')!;
    const byPosition = await aReadySandbox(t.app, owner, { asOf: String(created.position) });
    expect(byPosition.upToPosition).toBe(created.position);
    expect((await data(t.app, inSandbox(owner, byPosition.uuid), 'GET', `/api/v2/records/${record.uuid}`)).properties.title).toBe('old');
  });

  it('refuses a bad asOf with 400 INVALID_DATE and a correction', async () => {
    const res = await call(t.app, owner, 'POST', '/api/v2/developer-sandboxes', { name: 'x', asOf: 'yesterday' });
    expectErrorBody(res, 400, 'INVALID_DATE');
    expect(res.body.errors[0].correctionSuggestion).toMatch(/ISO 8601/);
  });

  it('401 without a token, 403 for roles that may not, 404 for another company\'s or an unknown sandbox, on every route and the header', async () => {
    const sandbox = await aReadySandbox(t.app, owner);
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/v2/developer-sandboxes'],
      ['POST', '/api/v2/developer-sandboxes/index', {}],
      ['POST', '/api/v2/developer-sandboxes', { name: 'n' }],
      ['GET', `/api/v2/developer-sandboxes/${sandbox.uuid}`],
      ['PUT', `/api/v2/developer-sandboxes/${sandbox.uuid}`, { reactorsEnabled: true }],
      ['DELETE', `/api/v2/developer-sandboxes/${sandbox.uuid}`],
    ];
    for (const [method, url, body] of routes) expectErrorBody(await call(t.app, null, method as 'GET', url, body), 401);
    const user = await joinCompany(t.app, owner, { role: 'USER' });
    for (const [method, url, body] of routes) {
      const res = await call(t.app, user, method as 'GET', url, body);
      expectErrorBody(res, 403);
      expect(res.body.roles.length).toBeGreaterThan(0);
    }
    const developer = await joinCompany(t.app, owner, { role: 'DEVELOPER' });
    expect((await call(t.app, developer, 'GET', `/api/v2/developer-sandboxes/${sandbox.uuid}`)).status).toBe(200);
    for (const [method, url, body] of routes.filter(([m, u]) => m !== 'GET' && !u.endsWith('/index'))) {
      const res = await call(t.app, developer, method as 'GET', url, body);
      expectErrorBody(res, 403);
      expect(res.body.roles).toEqual(['ADMIN']);
    }
    // Another company's sandbox is a 404 on its routes, as an unknown one is.
    for (const [method, url, body] of routes.filter(([, u]) => u.includes(sandbox.uuid))) {
      expectErrorBody(await call(t.app, other, method as 'GET', url, body), 404, 'NOT_FOUND');
      expectErrorBody(await call(t.app, owner, method as 'GET', url.replace(sandbox.uuid, '00000000-0000-4000-8000-000000000000'), body), 404, 'NOT_FOUND');
    }
    // The header: another company's, unknown and malformed sandboxes are 404 with the error body.
    for (const header of [sandbox.uuid, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await call(t.app, inSandbox(other, header), 'POST', '/api/v2/objects/index', {});
      expectErrorBody(res, 404, 'NOT_FOUND');
      expect(res.body.errors[0].correctionSuggestion).toMatch(/developer-sandboxes/);
    }
    // A USER of the company may not work in the sandbox; a DEVELOPER may.
    expectErrorBody(await call(t.app, inSandbox(user, sandbox.uuid), 'POST', '/api/v2/objects/index', {}), 403);
    expect((await call(t.app, inSandbox(developer, sandbox.uuid), 'POST', '/api/v2/objects/index', {})).status).toBe(200);
    // Without a token the header changes nothing: 401.
    expectErrorBody(await call(t.app, inSandbox({ ...owner, headers: {} as TestTenant['headers'] }, sandbox.uuid), 'POST', '/api/v2/objects/index', {}), 401);
  });

  it('a deleted sandbox is a 404 through the header and on its routes', async () => {
    const sandbox = await aReadySandbox(t.app, owner);
    expect((await call(t.app, inSandbox(owner, sandbox.uuid), 'POST', '/api/v2/objects/index', {})).status).toBe(200);
    expect((await call(t.app, owner, 'DELETE', `/api/v2/developer-sandboxes/${sandbox.uuid}`)).status).toBe(200);
    expectErrorBody(await call(t.app, inSandbox(owner, sandbox.uuid), 'POST', '/api/v2/objects/index', {}), 404, 'NOT_FOUND');
    expectErrorBody(await call(t.app, owner, 'GET', `/api/v2/developer-sandboxes/${sandbox.uuid}`), 404, 'NOT_FOUND');
    const listed = await data(t.app, owner, 'GET', '/api/v2/developer-sandboxes?limit=100');
    expect(listed.map((s: { uuid: string }) => s.uuid)).not.toContain(sandbox.uuid);
  });

  it('an Idempotency-Key used in a sandbox does not replay its answer in production', async () => {
    const object = await anObjectWith(t.app, owner, { title: { type: 'string', format: 'text' } });
    const sandbox = await aReadySandbox(t.app, owner);
    const headers = { 'idempotency-key': `sb-${sandbox.uuid}` };
    const inSb = await t.app.inject({ method: 'POST', url: `/api/v2/${object.name}`, headers: { ...inSandbox(owner, sandbox.uuid).headers, ...headers }, payload: { properties: { title: 'once' } } });
    expect(inSb.statusCode, inSb.body).toBe(201);
    const inProd = await t.app.inject({ method: 'POST', url: `/api/v2/${object.name}`, headers: { ...owner.headers, ...headers }, payload: { properties: { title: 'once' } } });
    expect(inProd.statusCode, inProd.body).toBe(201);
    expect(inProd.json().data.uuid).not.toBe(inSb.json().data.uuid);
    expect((await index(t.app, owner, object.name, {})).body.total).toBe(1);
  });

  it('refuses identity writes through a sandbox and leaves production alone', async () => {
    const sandbox = await aReadySandbox(t.app, owner);
    const res = await call(t.app, inSandbox(owner, sandbox.uuid), 'PUT', `/api/v2/companies/${owner.companyUuid}`, { name: 'Renamed' });
    expectErrorBody(res, 409);
    expect(res.body.errors[0].correctionSuggestion).toMatch(/without the X-Platform-Sandbox-Uuid header/);
  });
});
