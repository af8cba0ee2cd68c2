import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObjectWith, aRecord } from '../records/records-fixtures.js';
import { aPage, aSite, call, data, expectErrorBody, patchUrl } from './cms-fixtures.js';

let t: TestApp;
let owner: TestTenant;
let site: Awaited<ReturnType<typeof aSite>>;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
  site = await aSite(t.app, owner);
});
afterAll(async () => t.close());

describe('webpages', () => {
  it('creates a page bound to a record, with its title from the Page trait, and reads it back', async () => {
    const { record, page } = await aPage(t.app, owner, site);
    expect(page).toMatchObject({
      title: record.properties.headline,
      environment: 'production',
      locale: 'en',
      state: 'draft',
      published: false,
      protection: { type: 'none' },
      locales: ['en'],
      publishAt: null,
      unpublishAt: null,
      record: { uuid: record.uuid, object: site.object.name, properties: { headline: record.properties.headline } },
      document: { version: 1, revision: 0, modules: [], seo: {}, excerpt: '', css: '', headJs: '', bodyJs: '' },
    });
    expect(page.slug).toMatch(/^hello-w-/);
    expect(page.document.title).toBe(page.title);
    expect(await data(t.app, owner, 'GET', `/api/v2/webpages/${page.uuid}`)).toEqual(page);
  });

  it('refuses a record whose object has no Page trait, naming the trait', async () => {
    const plain = await anObjectWith(t.app, owner, { headline: { type: 'string', format: 'text' } });
    const record = await aRecord(t.app, owner, plain.name, { headline: 'x' });
    const res = await call(t.app, owner, 'POST', '/api/v2/webpages', { recordUuid: record.uuid });
    expectErrorBody(res, 400);
    expect(res.body.message).toMatch(/Page trait/);
    expect(res.body.errors[0].correctionSuggestion).toMatch(/traits\/.*\/Page/);
  });

  it('keeps slugs unique per environment and locale', async () => {
    const a = await aPage(t.app, owner, site, { slug: 'same-slug' });
    expect(a.page.slug).toBe('same-slug');
    const record = await aRecord(t.app, owner, site.object.name, { headline: 'Other' });
    const taken = await call(t.app, owner, 'POST', '/api/v2/webpages', { recordUuid: record.uuid, slug: 'same-slug' });
    expectErrorBody(taken, 400, 'INVALID_VALUE');
    expect(taken.body.message).toMatch(/taken/);
    // Another locale may use it.
    const other = await call(t.app, owner, 'POST', '/api/v2/webpages', { recordUuid: record.uuid, slug: 'same-slug', locale: 'de' });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    // A patch that sets a taken slug is refused and changes nothing.
    const b = await aPage(t.app, owner, site);
    const res = await call(t.app, owner, 'POST', patchUrl(b.record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'setPage', fields: { slug: 'same-slug' } }] });
    expectErrorBody(res, 400);
    expect((await data(t.app, owner, 'GET', `/api/v2/webpages/${b.page.uuid}`)).document.revision).toBe(0);
  });

  it('updates title, slug, SEO and scripts as one new revision; smartens the title on request', async () => {
    const { page } = await aPage(t.app, owner, site);
    const updated = await data(t.app, owner, 'PUT', `/api/v2/webpages/${page.uuid}`, { title: '"Jobs" -- at {{headline}}', seo: { title: 'SEO title', image: 'https://cdn.example/x.png' }, css: 'body{}', expectedRevision: 0 });
    expect(updated.document).toMatchObject({ revision: 1, title: '"Jobs" -- at {{headline}}', css: 'body{}', seo: { title: 'SEO title', image: 'https://cdn.example/x.png' } });
    const smart = await data(t.app, owner, 'GET', `/api/v2/webpages/${page.uuid}?smartened=true`);
    expect(smart.title).toBe(`\u201cJobs\u201d \u2013 at ${page.record.properties.headline}`);
    const stale = await call(t.app, owner, 'PUT', `/api/v2/webpages/${page.uuid}`, { title: 'x', expectedRevision: 0 });
    expectErrorBody(stale, 409);
  });

  it('answers 401 without a token, 403 without the scope, 404 for another company and for nothing', async () => {
    const { record, page } = await aPage(t.app, owner, site);
    const reader = await joinCompany(t.app, owner, { role: 'USER' });
    const stranger = await signUpWithCompany(t.app);
    const routes: [string, string, unknown?][] = [
      ['GET', `/api/v2/webpages/${page.uuid}`],
      ['PUT', `/api/v2/webpages/${page.uuid}`, { title: 'x' }],
      ['PUT', `/api/v2/webpages/${page.uuid}/publish`, {}],
      ['PUT', `/api/v2/webpages/${page.uuid}/unpublish`, {}],
      ['GET', `/api/v2/webpages/v2/pages/${record.uuid}?locale=en`],
      ['POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'setSeo', seo: { title: 'x' } }] }],
      ['POST', `/api/v2/webpages/v2/pages/${record.uuid}/history/index?locale=en`, {}],
      ['GET', `/api/v2/webpages/v2/pages/${record.uuid}/history/0?locale=en`],
      ['POST', `/api/v2/webpages/v2/pages/${record.uuid}/history/0/restore?locale=en`],
    ];
    for (const [method, url, body] of routes) {
      const m = method as 'GET' | 'PUT' | 'POST';
      expectErrorBody(await call(t.app, null, m, url, body), 401);
      expectErrorBody(await call(t.app, stranger, m, url, body), 404);
      const missing = url.replace(page.uuid, '00000000-0000-4000-8000-000000000000').replace(record.uuid, '00000000-0000-4000-8000-000000000000');
      expectErrorBody(await call(t.app, owner, m, missing, body), 404);
      const asReader = await call(t.app, reader, m, url, body);
      if (method === 'GET' || url.endsWith('/history/index?locale=en')) expect(asReader.status, url).toBe(200);
      else {
        expectErrorBody(asReader, 403);
        expect(asReader.body.scopes).toEqual(['webpages:write']);
      }
    }
    expectErrorBody(await call(t.app, stranger, 'POST', '/api/v2/webpages', { recordUuid: record.uuid }), 400, 'NOT_FOUND');
  });
});
