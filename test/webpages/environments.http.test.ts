import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aPage, aSite, call, data, expectErrorBody, unique } from './cms-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
});
afterAll(async () => t.close());

const keysAndDefault = async (who: TestTenant) => ((await data(t.app, who, 'GET', '/api/v2/cms/environments')) as { key: string; default: boolean }[]).map((e) => `${e.key}${e.default ? '*' : ''}`);

describe('CMS environments', () => {
  it('creates, lists, updates and deletes by key, keeping exactly one default', async () => {
    const owner = await signUpWithCompany(t.app);
    const first = await call(t.app, owner, 'POST', '/api/v2/cms/environments', { key: 'production', label: 'Live', routing: 'subdomain', slugPrefix: 'www', hostLabel: 'example.com', htmlLang: 'de', requiresAuth: false });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data).toEqual({ uuid: expect.any(String), key: 'production', label: 'Live', routing: 'subdomain', slugPrefix: 'www', hostLabel: 'example.com', htmlLang: 'de', requiresAuth: false, default: true });
    await data(t.app, owner, 'POST', '/api/v2/cms/environments', { key: 'preview', requiresAuth: true });
    expect(await keysAndDefault(owner)).toEqual(['production*', 'preview']);
    expect((await data(t.app, owner, 'GET', '/api/v2/webpages/environments')).map((e: { key: string }) => e.key)).toEqual(['production', 'preview']);

    const dup = await call(t.app, owner, 'POST', '/api/v2/cms/environments', { key: 'preview' });
    expectErrorBody(dup, 409);
    expectErrorBody(await call(t.app, owner, 'POST', '/api/v2/cms/environments', { key: 'Bad Key' }), 400);

    const moved = await data(t.app, owner, 'PUT', '/api/v2/cms/environments/preview', { default: true, label: 'Preview' });
    expect(moved).toMatchObject({ key: 'preview', label: 'Preview', default: true, requiresAuth: true });
    expect(await keysAndDefault(owner)).toEqual(['production', 'preview*']);
    const undefault = await call(t.app, owner, 'PUT', '/api/v2/cms/environments/preview', { default: false });
    expectErrorBody(undefault, 400);
    expect(undefault.body.errors[0].correctionSuggestion).toMatch(/another environment the default/);
    expectErrorBody(await call(t.app, owner, 'PUT', '/api/v2/cms/environments/preview', { key: 'renamed' }), 400);

    expect((await call(t.app, owner, 'DELETE', '/api/v2/cms/environments/preview')).body.data).toBe('deleted');
    expect(await keysAndDefault(owner)).toEqual(['production*']);
    expectErrorBody(await call(t.app, owner, 'DELETE', '/api/v2/cms/environments/preview'), 404);
  });

  it('answers the slugPrefix in effect: the key when none was set, as public pages and the slug map use it (spec 2.6)', async () => {
    const subdomain = unique('envs').replace(/_/g, '-');
    const owner = await signUpWithCompany(t.app, { subdomain });
    const site = await aSite(t.app, owner, { env: 'jobs' });
    expect((await data(t.app, owner, 'GET', '/api/v2/cms/environments'))[0]).toMatchObject({ key: 'jobs', slugPrefix: 'jobs' });
    const { page } = await aPage(t.app, owner, site);
    await data(t.app, owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    const slugs = (await call(t.app, null, 'GET', `/api/v2/webpages/public/getSlugs?subdomain=${subdomain}`)).body.data;
    expect(slugs.map((s: { rootSlug: string }) => s.rootSlug)).toEqual(['jobs']);
    expect((await call(t.app, null, 'GET', `/api/v2/webpages/public/jobs/${page.slug}?subdomain=${subdomain}`)).status).toBe(200);

    expect(await data(t.app, owner, 'PUT', '/api/v2/cms/environments/jobs', { slugPrefix: 'careers' })).toMatchObject({ slugPrefix: 'careers' });
    expect((await call(t.app, null, 'GET', `/api/v2/webpages/public/careers/${page.slug}?subdomain=${subdomain}`)).status).toBe(200);
    expect(await data(t.app, owner, 'PUT', '/api/v2/cms/environments/jobs', { slugPrefix: '' })).toMatchObject({ slugPrefix: 'jobs' });
    expect((await data(t.app, owner, 'GET', '/api/v2/webpages/environments'))[0]).toMatchObject({ slugPrefix: 'jobs' });
  });

  it('refuses to delete an environment that holds pages, naming how many', async () => {
    const owner = await signUpWithCompany(t.app);
    const site = await aSite(t.app, owner);
    await aPage(t.app, owner, site);
    await aPage(t.app, owner, site);
    const res = await call(t.app, owner, 'DELETE', `/api/v2/cms/environments/${site.env}`);
    expectErrorBody(res, 409);
    expect(res.body.message).toMatch(/2 pages/);
  });

  it('answers 401 without a token, 403 without webpages:write, 404 for another company', async () => {
    const owner = await signUpWithCompany(t.app);
    await data(t.app, owner, 'POST', '/api/v2/cms/environments', { key: 'production' });
    const reader = await joinCompany(t.app, owner, { role: 'USER' });
    const writer = await joinCompany(t.app, owner, { role: 'USER', scopes: ['webpages:write'] });
    const stranger = await signUpWithCompany(t.app);
    expectErrorBody(await call(t.app, null, 'GET', '/api/v2/cms/environments'), 401);
    expectErrorBody(await call(t.app, null, 'POST', '/api/v2/cms/environments', { key: 'x' }), 401);
    expect(await keysAndDefault(reader)).toEqual(['production*']);
    expectErrorBody(await call(t.app, reader, 'POST', '/api/v2/cms/environments', { key: 'x' }), 403);
    expectErrorBody(await call(t.app, reader, 'PUT', '/api/v2/cms/environments/production', { label: 'x' }), 403);
    expectErrorBody(await call(t.app, reader, 'DELETE', '/api/v2/cms/environments/production'), 403);
    expect((await call(t.app, writer, 'PUT', '/api/v2/cms/environments/production', { label: 'Changed' })).status).toBe(200);
    expect(await keysAndDefault(stranger)).toEqual([]);
    expectErrorBody(await call(t.app, stranger, 'PUT', '/api/v2/cms/environments/production', { label: 'x' }), 404);
    expectErrorBody(await call(t.app, stranger, 'DELETE', '/api/v2/cms/environments/production'), 404);
    // The stranger's own environment of the same key is its own.
    expect((await call(t.app, stranger, 'POST', '/api/v2/cms/environments', { key: 'production' })).status).toBe(201);
  });
});
