import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObjectWith } from '../records/records-fixtures.js';
import { aSite, call, data, expectErrorBody } from './cms-fixtures.js';

let t: TestApp;
let owner: TestTenant;
let site: Awaited<ReturnType<typeof aSite>>;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
  site = await aSite(t.app, owner);
});
afterAll(async () => t.close());

describe('template webpages', () => {
  it('creates, then updates, the template of an object in an environment; each change appends PageTemplateChanged', async () => {
    const url = `/api/v2/webpages/template/${site.object.name}/production`;
    expectErrorBody(await call(t.app, owner, 'GET', url), 404);
    const created = await call(t.app, owner, 'POST', url, { title: 'Job template', modules: [{ module: 'hero', fields: { heading: '{{headline}}' } }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ template: true, title: 'Job template', environment: 'production', document: { revision: 1, modules: [{ module: 'hero', fields: { heading: '{{headline}}' } }] } });
    const updated = await call(t.app, owner, 'POST', url, { excerpt: 'Every job page starts here' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ uuid: created.body.data.uuid, document: { revision: 2, excerpt: 'Every job page starts here' } });
    expect(await data(t.app, owner, 'GET', url)).toEqual(updated.body.data);
    const events = await t.platform.store.readStream(owner.companyUuid, `page-${created.body.data.uuid}`);
    expect(events.filter((e) => e.type === 'PageTemplateChanged').map((e) => (e.data as { revision: number }).revision)).toEqual([0, 1, 2]);
    // Module fields are checked like any page's.
    expectErrorBody(await call(t.app, owner, 'POST', url, { modules: [{ module: 'hero', fields: { nope: 1 } }] }), 400);
  });

  it('refuses an object without the Page trait (400), and answers 401, 403 and 404 for another company', async () => {
    const plain = await anObjectWith(t.app, owner, {});
    const res = await call(t.app, owner, 'POST', `/api/v2/webpages/template/${plain.name}/production`, { title: 'x' });
    expectErrorBody(res, 400);
    expect(res.body.message).toMatch(/Page trait/);
    const url = `/api/v2/webpages/template/${site.object.name}/production`;
    expectErrorBody(await call(t.app, null, 'POST', url, {}), 401);
    const stranger = await signUpWithCompany(t.app);
    expectErrorBody(await call(t.app, stranger, 'GET', url), 404);
    expectErrorBody(await call(t.app, stranger, 'POST', url, { title: 'x' }), 404);
  });
});
