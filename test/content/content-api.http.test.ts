import { describe, expect, it } from 'vitest';
import { signUpWithCompany } from '../support/actors.js';
import { aPage, aSite, call, data, expectErrorBody, unique, useCmsSite } from '../webpages/cms-fixtures.js';

const cms = useCmsSite({ subdomain: 'content' });
const get = (url: string, headers: Record<string, string> = {}) => cms.app.inject({ method: 'GET', url, headers });
const base = () => `/api/v2/content/${cms.subdomain}`;
const now = () => Math.floor(Date.now() / 1000);

describe('content API: the company by subdomain, custom domain or Host', () => {
  it('public settings by subdomain, by custom domain in the path and by Host with "_"; an unknown site is a 404', async () => {
    const domain = `www.${unique('shop').replace(/_/g, '-')}.example.com`;
    await data(cms.app, cms.owner, 'PUT', `/api/v2/companies/${cms.owner.companyUuid}/settings`, { customDomain: `https://${domain}/`, primaryColor: '#112233' });
    const bySub = await get(`${base()}/settings`);
    expect(bySub.statusCode).toBe(200);
    expect(bySub.json().data).toMatchObject({ uuid: cms.owner.companyUuid, primaryColor: '#112233' });
    expect(bySub.headers['cache-control']).toBe('public, max-age=60');
    expect((await get(`/api/v2/content/${domain}/settings`)).json()).toEqual(bySub.json());
    expect((await get('/api/v2/content/_/settings', { host: `${domain.toUpperCase()}:8443` })).json()).toEqual(bySub.json());
    for (const url of ['/api/v2/content/nobody-here/settings', `/api/v2/content/x.${domain}/settings`, `/api/v2/content/${encodeURIComponent("a' or 1=1")}/settings`]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(JSON.stringify(res.json())).not.toMatch(/sql|stack|tenant/i);
    }
    expect((await get('/api/v2/content/_/settings', { host: 'localhost' })).statusCode).toBe(404);
  });

  it('ETag of the answer, 304 on If-None-Match, a new ETag when the content changes', async () => {
    const first = await get(`${base()}/settings`);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const again = await get(`${base()}/settings`, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    await data(cms.app, cms.owner, 'PUT', `/api/v2/companies/${cms.owner.companyUuid}/settings`, { accentColor: `#${Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, '0')}` });
    const changed = await get(`${base()}/settings`, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });
});

describe('content API: pages, slug map, menus and records', () => {
  it('serves a page only while published; drafts, scheduled and ended pages are 404s and absent from every list', async () => {
    const { page: live, record } = await aPage(cms.app, cms.owner, cms.site);
    const { page: draft } = await aPage(cms.app, cms.owner, cms.site);
    const { page: scheduled } = await aPage(cms.app, cms.owner, cms.site);
    const { page: ended } = await aPage(cms.app, cms.owner, cms.site);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${live.uuid}/publish`, {});
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${scheduled.uuid}/publish?publishAt=${now() + 3600}`);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${ended.uuid}/publish`, {});
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${ended.uuid}/unpublish`, {});

    const res = await get(`${base()}/pages/production/${live.slug}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ uuid: live.uuid, recordUuid: record.uuid, environment: 'production', rootSlug: 'production', slug: live.slug, title: live.title, protected: false, document: { seo: expect.any(Object) } });
    expect(res.body).not.toContain('passwordHash');
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    for (const p of [draft, scheduled, ended]) expectErrorBody({ status: (await get(`${base()}/pages/production/${p.slug}`)).statusCode, body: (await get(`${base()}/pages/production/${p.slug}`)).json() }, 404);

    const slugs = (await get(`${base()}/pages?limit=100`)).json();
    const listed = slugs.data.map((s: { uuid: string }) => s.uuid);
    expect(listed).toContain(live.uuid);
    for (const p of [draft, scheduled, ended]) expect(listed).not.toContain(p.uuid);

    const records = (await get(`${base()}/records/${cms.site.object.name}?limit=100`)).json();
    expect(records.data.map((r: { pageUuid: string }) => r.pageUuid)).toEqual(expect.arrayContaining([live.uuid]));
    for (const p of [draft, scheduled, ended]) expect(records.data.map((r: { pageUuid: string }) => r.pageUuid)).not.toContain(p.uuid);
    expect(records.data.find((r: { pageUuid: string }) => r.pageUuid === live.uuid)).toEqual({ uuid: record.uuid, pageUuid: live.uuid, environment: 'production', rootSlug: 'production', locale: live.locale, slug: live.slug, title: live.title, seo: expect.any(Object), updatedAt: expect.any(Number) });
    expect(JSON.stringify(records)).not.toContain(record.properties.headline === live.title ? '"headline"' : record.properties.headline);

    // An object without the Page trait, a missing one: 404.
    const plain = await data(cms.app, cms.owner, 'POST', '/api/v2/objects', { name: unique('plain'), label: 'Plain' });
    expect((await get(`${base()}/records/${plain.name}`)).statusCode).toBe(404);
    expect((await get(`${base()}/records/nothing_here`)).statusCode).toBe(404);
  });

  it('a page ending within the minute is kept by shared caches no longer than it is live', async () => {
    const { page } = await aPage(cms.app, cms.owner, cms.site);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/unpublish`, { unpublishAt: now() + 20 });
    const res = await get(`${base()}/pages/production/${page.slug}`);
    expect(res.statusCode).toBe(200);
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers['cache-control'] as string)![1]);
    expect(maxAge).toBeLessThanOrEqual(20);
  });

  it('protected pages: 401 without the password or membership, private (no-store) with it; never in the records list', async () => {
    const { page } = await aPage(cms.app, cms.owner, cms.site, { protection: { type: 'password', password: 's3cret-pass' } });
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    const url = `${base()}/pages/production/${page.slug}`;
    expectErrorBody({ status: (await get(url)).statusCode, body: (await get(url)).json() }, 401);
    expect((await get(url, { 'x-page-password': 'wrong' })).statusCode).toBe(401);
    const right = await get(url, { 'x-page-password': 's3cret-pass' });
    expect(right.statusCode).toBe(200);
    expect(right.json().data).toMatchObject({ uuid: page.uuid, protected: true });
    expect(right.headers['cache-control']).toBe('private, no-store');
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}`, { protection: { type: 'members' } });
    expect((await get(url)).statusCode).toBe(401);
    expect((await get(url, cms.owner.headers)).statusCode).toBe(200);
    const outsider = await signUpWithCompany(cms.app);
    expect((await get(url, outsider.headers)).statusCode).toBe(401);
    const slug = (await get(`${base()}/pages?limit=100`)).json().data.find((s: { uuid: string }) => s.uuid === page.uuid);
    expect(slug).toMatchObject({ protected: true, title: null });
    const records = (await get(`${base()}/records/${cms.site.object.name}?limit=100`)).json();
    expect(records.data.map((r: { pageUuid: string }) => r.pageUuid)).not.toContain(page.uuid);
  });

  it('menus: page items link live pages only', async () => {
    const { page: live } = await aPage(cms.app, cms.owner, cms.site);
    const { page: draft } = await aPage(cms.app, cms.owner, cms.site);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${live.uuid}/publish`, {});
    const name = unique('m').replace(/_/g, '-').slice(0, 20);
    await data(cms.app, cms.owner, 'POST', '/api/v2/webmenus', { name, label: 'Main', items: [{ label: 'Home', url: '/' }, { label: 'Live', pageUuid: live.uuid }, { label: 'Draft', pageUuid: draft.uuid, children: [{ label: 'Under', url: '/u' }] }] });
    const res = await get(`${base()}/menus?name=${name}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data[0].items).toEqual([
      { label: 'Home', href: '/', pageUuid: null, locale: null, children: [] },
      { label: 'Live', href: `/production/${live.slug}`, pageUuid: live.uuid, locale: live.locale, children: [] },
    ]);
    expect((await get(`${base()}/menus?name=${name}`, { 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
  });

  it("another company's content is never reached through its own site name", async () => {
    const other = await signUpWithCompany(cms.app, { subdomain: unique('other').replace(/_/g, '-') });
    const otherSite = await aSite(cms.app, other);
    const { page } = await aPage(cms.app, other, otherSite);
    await data(cms.app, other, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    // Through this company's subdomain: 404; the object name of the other company: 404.
    expect((await get(`${base()}/pages/production/${page.slug}`)).statusCode).toBe(404);
    expect((await get(`${base()}/records/${otherSite.object.name}`)).statusCode).toBe(404);
    const mine = (await get(`${base()}/pages?limit=100`)).json().data.map((s: { uuid: string }) => s.uuid);
    expect(mine).not.toContain(page.uuid);
  });

  it('hostile input is a 400 or a 404, never a 500', async () => {
    for (const url of [
      `${base()}/pages/production/${encodeURIComponent("x' or 1=1")}`,
      `${base()}/pages?limit=100000`,
      `${base()}/pages?environment=${encodeURIComponent('../etc')}`,
      `${base()}/records/${encodeURIComponent('Robert); drop table')}`,
      `${base()}/pages/production/a?locale=${'x'.repeat(300)}`,
      `/api/v2/content/${'a'.repeat(300)}/settings`,
    ]) {
      const res = await get(url);
      expect([400, 404, 414], url).toContain(res.statusCode);
      expect(res.json().status).toBe(res.statusCode);
    }
    const res = await call(cms.app, null, 'GET', `${base()}/pages`);
    expect(res.status).toBe(200);
  });
});
