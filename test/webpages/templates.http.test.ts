import { describe, expect, it } from 'vitest';
import { signUpWithCompany } from '../support/actors.js';
import { anObjectWith } from '../records/records-fixtures.js';
import { call, data, expectErrorBody, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite();

describe('template webpages', () => {
  it('creates, then updates, the template of an object in an environment; each change appends PageTemplateChanged', async () => {
    const url = `/api/v2/webpages/template/${cms.site.object.name}/production`;
    expectErrorBody(await call(cms.app, cms.owner, 'GET', url), 404);
    const created = await call(cms.app, cms.owner, 'POST', url, { title: 'Job template', modules: [{ module: 'hero', fields: { heading: '{{headline}}' } }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ template: true, title: 'Job template', environment: 'production', document: { revision: 1, modules: [{ module: 'hero', fields: { heading: '{{headline}}' } }] } });
    const updated = await call(cms.app, cms.owner, 'POST', url, { excerpt: 'Every job page starts here' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ uuid: created.body.data.uuid, document: { revision: 2, excerpt: 'Every job page starts here' } });
    expect(await data(cms.app, cms.owner, 'GET', url)).toEqual(updated.body.data);
    const events = await cms.t.platform.store.readStream(cms.owner.companyUuid, `page-${created.body.data.uuid}`);
    expect(events.filter((e) => e.type === 'PageTemplateChanged').map((e) => (e.data as { revision: number }).revision)).toEqual([0, 1, 2]);
    // Module fields are checked like any page's.
    expectErrorBody(await call(cms.app, cms.owner, 'POST', url, { modules: [{ module: 'hero', fields: { nope: 1 } }] }), 400);
  });

  it('refuses an object without the Page trait (400), and answers 401, 403 and 404 for another company', async () => {
    const plain = await anObjectWith(cms.app, cms.owner, {});
    const res = await call(cms.app, cms.owner, 'POST', `/api/v2/webpages/template/${plain.name}/production`, { title: 'x' });
    expectErrorBody(res, 400);
    expect(res.body.message).toMatch(/Page trait/);
    const url = `/api/v2/webpages/template/${cms.site.object.name}/production`;
    expectErrorBody(await call(cms.app, null, 'POST', url, {}), 401);
    const stranger = await signUpWithCompany(cms.app);
    expectErrorBody(await call(cms.app, stranger, 'GET', url), 404);
    expectErrorBody(await call(cms.app, stranger, 'POST', url, { title: 'x' }), 404);
  });
});
