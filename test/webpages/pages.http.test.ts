import { describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany } from '../support/actors.js';
import { anObjectWith, aRecord } from '../records/records-fixtures.js';
import { aPage, call, data, expectErrorBody, patchUrl, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite();

describe('webpages', () => {
  it('creates a page bound to a record, with its title from the Page trait, and reads it back', async () => {
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
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
      record: { uuid: record.uuid, object: cms.site.object.name, properties: { headline: record.properties.headline } },
      document: { version: 1, revision: 0, modules: [], seo: {}, excerpt: '', css: '', headJs: '', bodyJs: '' },
    });
    expect(page.slug).toMatch(/^hello-w-/);
    expect(page.document.title).toBe(page.title);
    expect(await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/${page.uuid}`)).toEqual(page);
  });

  it('refuses a record whose object has no Page trait, naming the trait', async () => {
    const plain = await anObjectWith(cms.app, cms.owner, { headline: { type: 'string', format: 'text' } });
    const record = await aRecord(cms.app, cms.owner, plain.name, { headline: 'x' });
    const res = await call(cms.app, cms.owner, 'POST', '/api/v2/webpages', { recordUuid: record.uuid });
    expectErrorBody(res, 400);
    expect(res.body.message).toMatch(/Page trait/);
    expect(res.body.errors[0].correctionSuggestion).toMatch(/traits\/.*\/Page/);
  });

  it('keeps slugs unique per environment and locale', async () => {
    const a = await aPage(cms.app, cms.owner, cms.site, { slug: 'same-slug' });
    expect(a.page.slug).toBe('same-slug');
    const record = await aRecord(cms.app, cms.owner, cms.site.object.name, { headline: 'Other' });
    const taken = await call(cms.app, cms.owner, 'POST', '/api/v2/webpages', { recordUuid: record.uuid, slug: 'same-slug' });
    expectErrorBody(taken, 400, 'INVALID_VALUE');
    expect(taken.body.message).toMatch(/taken/);
    // Another locale may use it.
    const other = await call(cms.app, cms.owner, 'POST', '/api/v2/webpages', { recordUuid: record.uuid, slug: 'same-slug', locale: 'de' });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    // A patch that sets a taken slug is refused and changes nothing.
    const b = await aPage(cms.app, cms.owner, cms.site);
    const res = await call(cms.app, cms.owner, 'POST', patchUrl(b.record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'setPage', fields: { slug: 'same-slug' } }] });
    expectErrorBody(res, 400);
    expect((await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/${b.page.uuid}`)).document.revision).toBe(0);
  });

  it('updates title, slug, SEO and scripts as one new revision; smartens the title on request', async () => {
    const { page } = await aPage(cms.app, cms.owner, cms.site);
    const updated = await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}`, { title: '"Jobs" -- at {{headline}}', seo: { title: 'SEO title', image: 'https://cdn.example/x.png' }, css: 'body{}', expectedRevision: 0 });
    expect(updated.document).toMatchObject({ revision: 1, title: '"Jobs" -- at {{headline}}', css: 'body{}', seo: { title: 'SEO title', image: 'https://cdn.example/x.png' } });
    const smart = await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/${page.uuid}?smartened=true`);
    expect(smart.title).toBe(`\u201cJobs\u201d \u2013 at ${page.record.properties.headline}`);
    const stale = await call(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}`, { title: 'x', expectedRevision: 0 });
    expectErrorBody(stale, 409);
  });

  it('answers 401 without a token, 403 without the scope, 404 for another company and for nothing', async () => {
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    const reader = await joinCompany(cms.app, cms.owner, { role: 'USER' });
    const stranger = await signUpWithCompany(cms.app);
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
      expectErrorBody(await call(cms.app, null, m, url, body), 401);
      expectErrorBody(await call(cms.app, stranger, m, url, body), 404);
      const missing = url.replace(page.uuid, '00000000-0000-4000-8000-000000000000').replace(record.uuid, '00000000-0000-4000-8000-000000000000');
      expectErrorBody(await call(cms.app, cms.owner, m, missing, body), 404);
      const asReader = await call(cms.app, reader, m, url, body);
      if (method === 'GET' || url.endsWith('/history/index?locale=en')) expect(asReader.status, url).toBe(200);
      else {
        expectErrorBody(asReader, 403);
        expect(asReader.body.scopes).toEqual(['webpages:write']);
      }
    }
    expectErrorBody(await call(cms.app, stranger, 'POST', '/api/v2/webpages', { recordUuid: record.uuid }), 400, 'NOT_FOUND');
  });
});
