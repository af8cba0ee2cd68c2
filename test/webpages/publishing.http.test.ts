import { describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany } from '../support/actors.js';
import { aPage, call, data, expectErrorBody, patchUrl, unique, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite({ subdomain: 'site' });

const now = () => Math.floor(Date.now() / 1000);
const publicUrl = (slug: string, query = '') => `/api/v2/webpages/public/production/${slug}?subdomain=${cms.subdomain}${query}`;

describe('publishing and public pages', () => {
  it('shows a page only while published, without record values or internals', async () => {
    const { page, record } = await aPage(cms.app, cms.owner, cms.site);
    expectErrorBody(await call(cms.app, null, 'GET', publicUrl(page.slug)), 404, 'NOT_FOUND');
    const published = await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    expect(published).toMatchObject({ state: 'published', published: true, publishAt: null });
    const pub = await call(cms.app, null, 'GET', publicUrl(page.slug));
    expect(pub.status, JSON.stringify(pub.body)).toBe(200);
    expect(pub.body.data).toMatchObject({ uuid: page.uuid, title: page.title, state: 'published', published: true, record: { uuid: record.uuid, properties: {} }, protection: { type: 'none' } });
    expect(JSON.stringify(pub.body)).not.toContain(record.properties.headline === page.title ? '"headline"' : record.properties.headline);
    // Another company's subdomain, a wrong root slug, a wrong locale: the same 404.
    const other = await signUpWithCompany(cms.app);
    expect((await call(cms.app, null, 'GET', `/api/v2/webpages/public/production/${page.slug}?subdomain=nobody-${unique('x').replace(/_/g, '-')}`)).status).toBe(404);
    expect((await call(cms.app, other, 'GET', `/api/v2/webpages/public/staging/${page.slug}?subdomain=${cms.subdomain}`)).status).toBe(404);
    expect((await call(cms.app, null, 'GET', publicUrl(page.slug, '&locale=de'))).status).toBe(404);
    // Hostile input: 400, never 500.
    expect((await call(cms.app, null, 'GET', `/api/v2/webpages/public/production/${encodeURIComponent("x' or 1=1")}?subdomain=${cms.subdomain}`)).status).toBe(400);
    expect((await call(cms.app, null, 'GET', publicUrl(page.slug, '&asOf=yesterday'))).status).toBe(400);
    expect((await call(cms.app, null, 'GET', `/api/v2/webpages/public/production/${page.slug}`)).status).toBe(400);

    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/unpublish`, {});
    expect((await call(cms.app, null, 'GET', publicUrl(page.slug))).status).toBe(404);
    expect((await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/${page.uuid}`)).state).toBe('unpublished');
  });

  it('refuses a publishAt in the past or not an integer (400), and schedules one in the future', async () => {
    const { page } = await aPage(cms.app, cms.owner, cms.site);
    for (const publishAt of [now() - 10, 1.5, 'soon', Date.now() + 60_000]) {
      const res = await call(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, { publishAt });
      expectErrorBody(res, 400, 'INVALID_DATE');
    }
    expectErrorBody(await call(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish?publishAt=abc`), 400, 'INVALID_DATE');
    const at = now() + 3600;
    const scheduled = await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish?publishAt=${at}`);
    expect(scheduled).toMatchObject({ state: 'scheduled', published: false, publishAt: at });
    expect((await call(cms.app, null, 'GET', publicUrl(page.slug))).status).toBe(404);
    const ends = await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/unpublish`, { unpublishAt: at + 60 });
    expect(ends).toMatchObject({ state: 'scheduled', publishAt: at, unpublishAt: at + 60 });
    expectErrorBody(await call(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/unpublish`, { unpublishAt: at - 60 }), 400, 'INVALID_DATE');
  });

  it('answers ?asOf= with what was live then', async () => {
    const { page, record } = await aPage(cms.app, cms.owner, cms.site);
    await call(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'setSeo', seo: { title: 'first' } }] });
    const beforePublish = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    await new Promise((r) => setTimeout(r, 20));
    const firstLive = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await call(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 1, patches: [{ op: 'setSeo', seo: { title: 'second' } }] });
    expect((await call(cms.app, null, 'GET', publicUrl(page.slug, `&asOf=${beforePublish}`))).status).toBe(404);
    const then = await call(cms.app, null, 'GET', publicUrl(page.slug, `&asOf=${firstLive}`));
    expect(then.status, JSON.stringify(then.body)).toBe(200);
    expect(then.body.data.document).toMatchObject({ revision: 1, seo: { title: 'first' } });
    expect((await call(cms.app, null, 'GET', publicUrl(page.slug))).body.data.document.seo).toEqual({ title: 'second' });
  });

  it('enforces protection: a password, or signed-in members of the company', async () => {
    const { page } = await aPage(cms.app, cms.owner, cms.site, { protection: { type: 'password', password: 's3cret-pass' } });
    expect(page.protection).toEqual({ type: 'password' });
    expect(JSON.stringify(page)).not.toContain('s3cret');
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    expectErrorBody(await call(cms.app, null, 'GET', publicUrl(page.slug)), 401);
    const wrong = await cms.app.inject({ method: 'GET', url: publicUrl(page.slug), headers: { 'x-page-password': 'nope' } });
    expect(wrong.statusCode).toBe(401);
    const right = await cms.app.inject({ method: 'GET', url: publicUrl(page.slug), headers: { 'x-page-password': 's3cret-pass' } });
    expect(right.statusCode).toBe(200);
    const events = await cms.t.platform.store.readStream(cms.owner.companyUuid, `page-${page.uuid}`);
    expect(JSON.stringify(events)).not.toContain('s3cret-pass');

    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}`, { protection: { type: 'members' } });
    expectErrorBody(await call(cms.app, null, 'GET', publicUrl(page.slug)), 401);
    const stranger = await signUpWithCompany(cms.app);
    expect((await call(cms.app, stranger, 'GET', publicUrl(page.slug))).status).toBe(401);
    const member = await joinCompany(cms.app, cms.owner, { role: 'USER' });
    expect((await call(cms.app, member, 'GET', publicUrl(page.slug))).status).toBe(200);
  });

  it('lists the slug map of live pages only, without login', async () => {
    const live = await aPage(cms.app, cms.owner, cms.site);
    const draft = await aPage(cms.app, cms.owner, cms.site);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${live.page.uuid}/publish`, {});
    const res = await call(cms.app, null, 'GET', `/api/v2/webpages/public/getSlugs?subdomain=${cms.subdomain}&limit=1000`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const slugs = res.body.data.map((d: { slug: string }) => d.slug);
    expect(slugs).toContain(live.page.slug);
    expect(slugs).not.toContain(draft.page.slug);
    expect(res.body.data.find((d: { slug: string }) => d.slug === live.page.slug)).toEqual({ uuid: live.page.uuid, environment: 'production', rootSlug: 'production', locale: 'en', slug: live.page.slug, title: live.page.title, protected: false });
    expect(res.body.total).toBe(res.body.data.length);
    expect((await call(cms.app, null, 'GET', '/api/v2/webpages/public/getSlugs?subdomain=NOT%20VALID')).status).toBe(400);
  });
});
