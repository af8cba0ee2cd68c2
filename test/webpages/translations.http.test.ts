import { beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany } from '../support/actors.js';
import { aPage, call, data, expectErrorBody, patchUrl, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite();
beforeAll(async () => {
  await data(cms.app, cms.owner, 'POST', '/api/v2/cms/environments', { key: 'germany', htmlLang: 'de' });
});

describe('translations', () => {
  it('translates a page into another environment (a linked copy), maps, unlinks and links again', async () => {
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    await data(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { id: 'h', module: 'hero', fields: { heading: 'Hi' } } }] });
    const url = `/api/v2/webpages/v2/pages/${record.uuid}/environments/germany/translate?locale=en`;
    const translated = await data(cms.app, cms.owner, 'POST', url);
    expect(translated).toMatchObject({ environment: 'germany', locale: 'de', slug: page.slug, title: page.title, state: 'draft', document: { revision: 0, modules: [{ id: 'h', module: 'hero', fields: { heading: 'Hi' } }] } });
    expectErrorBody(await call(cms.app, cms.owner, 'POST', url), 409);

    const map = await data(cms.app, cms.owner, 'GET', `/api/v2/cms/environments/translations/${record.uuid}`);
    expect(Object.keys(map).sort()).toEqual(['germany', 'production']);
    expect(map.germany[0]).toMatchObject({ uuid: translated.uuid, locale: 'de' });

    // Link two pages of different records; unlink; the same environment is refused.
    const other = await aPage(cms.app, cms.owner, cms.site);
    const link = `/api/v2/cms/environments/translations/${other.page.uuid}/link/${translated.uuid}`;
    expect((await call(cms.app, cms.owner, 'POST', link)).body.data).toBe('linked');
    const otherMap = await data(cms.app, cms.owner, 'GET', `/api/v2/cms/environments/translations/${other.record.uuid}`);
    expect(otherMap.germany.map((p: { uuid: string }) => p.uuid)).toEqual([translated.uuid]);
    expect((await call(cms.app, cms.owner, 'DELETE', link)).body.data).toBe('unlinked');
    expect((await data(cms.app, cms.owner, 'GET', `/api/v2/cms/environments/translations/${other.record.uuid}`)).germany).toBeUndefined();
    expectErrorBody(await call(cms.app, cms.owner, 'POST', `/api/v2/cms/environments/translations/${other.page.uuid}/link/${page.uuid}`), 400);
  });

  it('translates without ?locale= (spec 4.3 names no request): from the page in the source environment\'s htmlLang, else its only page there', async () => {
    const translate = (recordUuid: string) => call(cms.app, cms.owner, 'POST', `/api/v2/webpages/v2/pages/${recordUuid}/environments/germany/translate`);
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    const plain = await translate(record.uuid);
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.data).toMatchObject({ environment: 'germany', locale: 'de', slug: page.slug, title: page.title });
    const map = await data(cms.app, cms.owner, 'GET', `/api/v2/cms/environments/translations/${record.uuid}`);
    expect(map.germany.map((p: { uuid: string }) => p.uuid)).toEqual([plain.body.data.uuid]);

    const french = await aPage(cms.app, cms.owner, cms.site, { locale: 'fr' });
    const fromOnly = await translate(french.record.uuid);
    expect(fromOnly.status, JSON.stringify(fromOnly.body)).toBe(200);
    expect(fromOnly.body.data).toMatchObject({ environment: 'germany', locale: 'de', title: french.page.title });

    // Two pages there, neither in the environment's htmlLang: which one is the caller's to say.
    await data(cms.app, cms.owner, 'POST', '/api/v2/webpages', { recordUuid: french.record.uuid, environment: 'production', locale: 'it' });
    await data(cms.app, cms.owner, 'POST', '/api/v2/cms/environments', { key: 'austria', htmlLang: 'de-AT' });
    const ambiguous = await call(cms.app, cms.owner, 'POST', `/api/v2/webpages/v2/pages/${french.record.uuid}/environments/austria/translate`);
    expectErrorBody(ambiguous, 400);
    expect(ambiguous.body.errors[0].correctionSuggestion).toMatch(/fr, it/);
    const { record: bare } = await aPage(cms.app, cms.owner, cms.site);
    expectErrorBody(await call(cms.app, cms.owner, 'POST', `/api/v2/webpages/v2/pages/${bare.uuid}/environments/germany/translate?environment=austria`), 404);
  });

  it('answers 401, 403, and 404 for another company on every translation route', async () => {
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    const copy = await data(cms.app, cms.owner, 'POST', `/api/v2/webpages/v2/pages/${record.uuid}/environments/germany/translate?locale=en`);
    const reader = await joinCompany(cms.app, cms.owner, { role: 'USER' });
    const stranger = await signUpWithCompany(cms.app);
    const link = `/api/v2/cms/environments/translations/${page.uuid}/link/${copy.uuid}`;
    for (const [method, url] of [['POST', link], ['DELETE', link], ['POST', `/api/v2/webpages/v2/pages/${record.uuid}/environments/germany/translate?locale=en`]] as const) {
      expectErrorBody(await call(cms.app, null, method, url), 401);
      expectErrorBody(await call(cms.app, reader, method, url), 403);
      expectErrorBody(await call(cms.app, stranger, method, url), 404);
    }
    expectErrorBody(await call(cms.app, null, 'GET', `/api/v2/cms/environments/translations/${record.uuid}`), 401);
    expect((await call(cms.app, reader, 'GET', `/api/v2/cms/environments/translations/${record.uuid}`)).status).toBe(200);
    expectErrorBody(await call(cms.app, stranger, 'GET', `/api/v2/cms/environments/translations/${record.uuid}`), 404);
  });

  it('copies a page between environments', async () => {
    await data(cms.app, cms.owner, 'POST', '/api/v2/cms/environments', { key: 'staging' });
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    await data(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'setSeo', seo: { title: 'copied' } }] });
    const res = await call(cms.app, cms.owner, 'POST', `/api/v2/webpages/${page.uuid}/copy/production/staging`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ environment: 'staging', locale: 'en', slug: page.slug, state: 'draft', document: { revision: 0, seo: { title: 'copied' } }, record: { uuid: record.uuid } });
    expect(res.body.data.uuid).not.toBe(page.uuid);
    expectErrorBody(await call(cms.app, cms.owner, 'POST', `/api/v2/webpages/${page.uuid}/copy/production/staging`), 409);
    expectErrorBody(await call(cms.app, cms.owner, 'POST', `/api/v2/webpages/${page.uuid}/copy/staging/production`), 400);
    expectErrorBody(await call(cms.app, cms.owner, 'POST', `/api/v2/webpages/${page.uuid}/copy/production/nowhere`), 404);
    const stranger = await signUpWithCompany(cms.app);
    expectErrorBody(await call(cms.app, stranger, 'POST', `/api/v2/webpages/${page.uuid}/copy/production/staging`), 404);
    expectErrorBody(await call(cms.app, null, 'POST', `/api/v2/webpages/${page.uuid}/copy/production/staging`), 401);
  });
});
