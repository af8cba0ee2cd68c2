import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUp, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObjectWith, aRecord } from '../records/records-fixtures.js';
import { call, data, expectErrorBody, patchUrl, testModules, unique } from '../webpages/cms-fixtures.js';

const IMPORT_LIMIT = 2_000_000;
let t: TestApp;
let app: FastifyInstance;
let a: TestTenant;
const subA = unique('site-a').replace(/_/g, '-');
let objectName: string;
/** Company A's pages by name, with their records. */
const pagesOfA: Record<string, { uuid: string; recordUuid: string; slug: string }> = {};
let doc: Record<string, any>;

const importUrl = (dryRun?: boolean) => `/api/v2/cms/import${dryRun === undefined ? '' : `?dryRun=${dryRun}`}`;
const eventCount = async (tenant: string) => (await t.platform.db.query<{ n: number }>('select count(*)::int as n from events where tenant = $1', [tenant]))[0]!.n;

/** A company with the same Page object as A (same name) and one record per page of A: the records map of an import. */
async function aTarget(): Promise<{ who: TestTenant; subdomain: string; records: Record<string, string> }> {
  const subdomain = unique('site-b').replace(/_/g, '-');
  const who = await signUpWithCompany(app, { subdomain });
  const object = await anObjectWith(app, who, { headline: { type: 'string', format: 'text' } }, objectName);
  await data(app, who, 'POST', `/api/v2/traits/${object.uuid}/Page`, { titleProperty: 'headline' });
  const records: Record<string, string> = {};
  for (const p of Object.values(pagesOfA)) records[p.recordUuid] ??= (await aRecord(app, who, objectName, { headline: 'Imported' })).uuid;
  return { who, subdomain, records };
}

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', CMS_IMPORT_BODY_LIMIT_BYTES: String(IMPORT_LIMIT) });
  app = t.app;
  a = await signUpWithCompany(app, { subdomain: subA });
  await data(app, a, 'POST', '/api/v2/cms/environments', { key: 'production', label: 'Production' });
  await data(app, a, 'POST', '/api/v2/cms/environments', { key: 'germany', label: 'Deutschland', htmlLang: 'de', slugPrefix: 'de' });
  for (const module of testModules) await data(app, a, 'POST', '/api/v2/modules', module);
  const object = await anObjectWith(app, a, { headline: { type: 'string', format: 'text' } }, unique('job'));
  objectName = object.name;
  await data(app, a, 'POST', `/api/v2/traits/${object.uuid}/Page`, { titleProperty: 'headline' });
  const make = async (name: string, body: Record<string, unknown>, recordUuid?: string) => {
    const rec = recordUuid ?? (await aRecord(app, a, objectName, { headline: `Page ${name}` })).uuid;
    const page = await data(app, a, 'POST', '/api/v2/webpages', { recordUuid: rec, slug: name, ...body });
    pagesOfA[name] = { uuid: page.uuid, recordUuid: rec, slug: page.slug };
    return page;
  };
  const home = await make('home', { environment: 'production', seo: { title: 'Home SEO' }, css: 'body{color:red}' });
  await data(app, a, 'POST', patchUrl(pagesOfA.home!.recordUuid), {
    locale: 'en', expectedRevision: 0,
    patches: [{ op: 'addModule', module: { id: 'hero-1', module: 'hero', fields: { heading: 'Welcome', body: 'to Acme' } } }, { op: 'addModule', module: { id: 'f', module: 'footer', fields: { year: 2026 } } }],
  });
  await data(app, a, 'PUT', `/api/v2/webpages/${home.uuid}/publish`);
  await make('draft', { environment: 'production' });
  await make('secret', { environment: 'production', protection: { type: 'password', password: 'open sesame' } });
  await data(app, a, 'PUT', `/api/v2/webpages/${pagesOfA.secret!.uuid}/publish`);
  await make('later', { environment: 'production' });
  await data(app, a, 'PUT', `/api/v2/webpages/${pagesOfA.later!.uuid}/publish`, { publishAt: Math.floor(Date.now() / 1000) + 3600 });
  const heim = await data(app, a, 'POST', `/api/v2/webpages/v2/pages/${pagesOfA.home!.recordUuid}/environments/germany/translate?locale=en`);
  pagesOfA.heim = { uuid: heim.uuid, recordUuid: pagesOfA.home!.recordUuid, slug: heim.slug };
  await data(app, a, 'PUT', `/api/v2/webpages/${heim.uuid}/publish`);
  await data(app, a, 'POST', '/api/v2/webmenus', { name: 'main', environment: 'production', items: [{ label: 'Home', pageUuid: home.uuid }, { label: 'More', children: [{ label: 'Draft', pageUuid: pagesOfA.draft!.uuid }, { label: 'Docs', url: 'https://example.test/docs' }] }] });
  doc = await data(app, a, 'GET', '/api/v2/cms/export');
});
afterAll(async () => t?.close());

describe('CMS export', () => {
  it('writes the site as one versioned document', () => {
    expect(doc).toMatchObject({ formatVersion: 1, source: { companyUuid: a.companyUuid, subdomain: subA } });
    expect(doc.environments.map((e: { key: string }) => e.key)).toEqual(['production', 'germany']);
    expect(doc.environments[1]).toEqual({ key: 'germany', label: 'Deutschland', routing: expect.any(String), slugPrefix: 'de', hostLabel: expect.any(String), htmlLang: 'de', requiresAuth: false, default: false });
    expect(doc.modules.map((m: { name: string }) => m.name)).toEqual(['banner', 'footer', 'hero', 'text']);
    expect(doc.pages).toHaveLength(5);
    const home = doc.pages.find((p: { uuid: string }) => p.uuid === pagesOfA.home!.uuid);
    expect(home).toMatchObject({
      recordUuid: pagesOfA.home!.recordUuid, objectName, environment: 'production', locale: 'en', protection: 'none',
      publication: { published: true, publishAt: null, unpublishAt: null },
      document: { title: 'Page home', slug: 'home', css: 'body{color:red}', seo: { title: 'Home SEO' }, modules: [{ id: 'hero-1', module: 'hero', fields: { heading: 'Welcome', body: 'to Acme' }, hidden: false }, { id: 'f', module: 'footer', fields: { year: 2026 }, hidden: false }] },
    });
    expect(doc.pages.find((p: { uuid: string }) => p.uuid === pagesOfA.secret!.uuid).protection).toBe('password');
    expect(JSON.stringify(doc)).not.toMatch(/scrypt|passwordHash|open sesame/);
    expect(doc.pages.find((p: { uuid: string }) => p.uuid === pagesOfA.later!.uuid).publication).toMatchObject({ published: false, publishAt: expect.any(Number) });
    expect(doc.translations).toEqual([[pagesOfA.home!.uuid, pagesOfA.heim!.uuid].sort()]);
    expect(doc.menus).toEqual([{ uuid: expect.any(String), name: 'main', label: 'main', environment: 'production', items: expect.any(Array) }]);
  });
});

describe('CMS export of a site the format cannot carry', () => {
  it('is a 409 naming the value, not a 500', async () => {
    const c = await aTarget();
    await data(app, c.who, 'POST', '/api/v2/cms/environments', { key: 'production' });
    const page = await data(app, c.who, 'POST', '/api/v2/webpages', { recordUuid: Object.values(c.records)[0] });
    // Older data: a page whose stored SEO map has more keys than the format carries.
    const seo = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, 'v']));
    await t.platform.db.query(`update rm_pages set document = jsonb_set(document, '{seo}', $2::jsonb) where page_uuid = $1`, [page.uuid, JSON.stringify(seo)]);
    const res = await call(app, c.who, 'GET', '/api/v2/cms/export');
    expectErrorBody(res, 409, 'INVALID_VALUE');
    expect(res.body.errors[0].message).toMatch(/^pages\.0\.document\.seo: at most 200 keys/);
  });
});

describe('CMS import', () => {
  it('a dry run lists what would change and writes nothing; the import then gives the same public pages and menus', async () => {
    const b = await aTarget();
    const before = await eventCount(b.who.companyUuid);
    const dry = await call(app, b.who, 'POST', importUrl(), { document: doc, records: b.records });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data.dryRun).toBe(true);
    expect(dry.body.data.counts).toEqual({ 'environment.create': 2, 'module.create': 4, 'page.create': 5, 'publication.publish': 3, 'publication.schedule': 1, 'translation.link': 1, 'menu.create': 1 });
    expect(dry.body.data.changes.find((c: { key: string }) => c.key === 'production/en/secret')).toMatchObject({ kind: 'page', action: 'create', note: expect.stringMatching(/members-only/) });
    expect(await eventCount(b.who.companyUuid)).toBe(before);

    const done = await call(app, b.who, 'POST', importUrl(false), { document: doc, records: b.records });
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    const created = done.body.data.changes.filter((c: { action: string; kind: string }) => c.action === 'create' && (c.kind === 'page' || c.kind === 'menu'));
    expect(created.every((c: { targetUuid: string; sourceUuid: string }) => c.targetUuid && c.targetUuid !== c.sourceUuid)).toBe(true);

    // The same public pages, by the existing public route: only the uuids differ.
    const publicPage = async (subdomain: string, root: string, slug: string) => call(app, null, 'GET', `/api/v2/webpages/public/${root}/${slug}?subdomain=${subdomain}`);
    // The imported page starts its own history: its document is at revision 0 there.
    const strip = (body: Record<string, any>) => ({ ...body, data: { ...body.data, uuid: null, record: { ...body.data.record, uuid: null }, document: { ...body.data.document, revision: null } } });
    for (const [root, slug] of [['production', 'home'], ['de', pagesOfA.heim!.slug]] as const) {
      const [fromA, fromB] = [await publicPage(subA, root, slug), await publicPage(b.subdomain, root, slug)];
      expect(fromA.status).toBe(200);
      expect(fromB.status, JSON.stringify(fromB.body)).toBe(200);
      expect(strip(fromB.body)).toEqual(strip(fromA.body));
    }
    for (const slug of ['draft', 'later']) {
      expect((await publicPage(subA, 'production', slug)).status).toBe(404);
      expectErrorBody(await publicPage(b.subdomain, 'production', slug), 404);
    }
    // The password page is members-only there: a member reads it, nobody else.
    expectErrorBody(await publicPage(b.subdomain, 'production', 'secret'), 401);
    expect((await app.inject({ method: 'GET', url: `/api/v2/webpages/public/production/secret?subdomain=${b.subdomain}`, headers: b.who.headers })).statusCode).toBe(200);

    const menus = async (subdomain: string) => (await call(app, null, 'GET', `/api/v2/webpages/public/getMenus?subdomain=${subdomain}`)).body.data.map((m: Record<string, any>) => ({ ...m, uuid: null, items: m.items.map((i: Record<string, unknown>) => ({ ...i, pageUuid: i.pageUuid ? 'page' : null })) }));
    expect(await menus(b.subdomain)).toEqual(await menus(subA));

    // The translation link is remapped to the new pages, and the export of B is A's site again.
    const again = await data(app, b.who, 'GET', '/api/v2/cms/export');
    const shape = (d: Record<string, any>) => d.pages.map((p: Record<string, any>) => [p.environment, p.locale, p.document, p.publication.published]).sort((x: string[], y: string[]) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    expect(shape(again)).toEqual(shape(doc));
    expect(again.translations).toHaveLength(1);
    const pair = again.translations[0].map((u: string) => again.pages.find((p: { uuid: string }) => p.uuid === u).environment).sort();
    expect(pair).toEqual(['germany', 'production']);
    expect(again.environments).toEqual(doc.environments);
    expect(again.modules).toEqual(doc.modules);

    // Importing it again is refused whole: the slugs, record pages and menu name are taken.
    const count = await eventCount(b.who.companyUuid);
    const twice = await call(app, b.who, 'POST', importUrl(false), { document: doc, records: b.records });
    expectErrorBody(twice, 400);
    expect(twice.body.errors.map((e: { message: string }) => e.message).join('\n')).toMatch(/slug home is taken[\s\S]*a live menu main exists/);
    expect(await eventCount(b.who.companyUuid)).toBe(count);
  });

  it('checks module definitions against the company\'s own, and keeps what it has', async () => {
    const b = await aTarget();
    await data(app, b.who, 'POST', '/api/v2/cms/environments', { key: 'production', label: 'Here', htmlLang: 'en' });
    await data(app, b.who, 'POST', '/api/v2/modules', { name: 'hero', label: 'Hero', fields: [{ name: 'heading', type: 'number' }, { name: 'body', type: 'text' }] });
    const res = await call(app, b.who, 'POST', importUrl(), { document: doc, records: b.records });
    expectErrorBody(res, 400);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(/pages\.0\.document\.modules\.0.*heading.*number/), type: 'INVALID_VALUE' });
    await data(app, b.who, 'PUT', `/api/v2/modules/${(await data(app, b.who, 'POST', '/api/v2/modules/index', {}))[0].uuid}`, { fields: [{ name: 'heading', type: 'text' }, { name: 'body', type: 'text' }] });
    const ok = await call(app, b.who, 'POST', importUrl(), { document: doc, records: b.records });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.changes.filter((c: { action: string }) => c.action === 'keep')).toEqual([
      { kind: 'environment', action: 'keep', key: 'production', sourceUuid: null, targetUuid: null, note: null },
      { kind: 'module', action: 'keep', key: 'hero', sourceUuid: null, targetUuid: null, note: expect.stringMatching(/differs/) },
    ]);
  });

  it('refuses a hostile document with the error body and writes nothing', async () => {
    const b = await aTarget();
    const before = await eventCount(b.who.companyUuid);
    const page0 = doc.pages[0];
    const cases: [unknown, RegExp, number?][] = [
      [{ ...doc, formatVersion: 2 }, /formatVersion: 2 is not a format/],
      [{ ...doc, formatVersion: undefined }, /formatVersion: null is not a format/],
      ['a string', /formatVersion/],
      [[doc], /formatVersion/],
      [{ ...doc, pages: [{ ...page0, environment: 'nowhere' }] }, /environment nowhere is neither in the document nor in this company/],
      [{ ...doc, pages: [{ ...page0, document: { ...page0.document, modules: [{ id: 'x', module: 'ghost', fields: {}, hidden: false }] } }] }, /module ..ghost.. is not defined/],
      [{ ...doc, pages: [{ ...page0, recordUuid: '00000000-0000-4000-8000-000000000009' }] }, /record 00000000-0000-4000-8000-000000000009 is not a live record/],
      [{ ...doc, translations: [[page0.uuid, '00000000-0000-4000-8000-000000000001']] }, /translations\.0: page 00000000-0000-4000-8000-000000000001 is not a page of the document/],
      [{ ...doc, menus: [{ ...doc.menus[0], items: [{ label: 'x', pageUuid: '00000000-0000-4000-8000-000000000002' }] }] }, /menus\.0\.items\.0\.pageUuid: page .* is not a page of the document/],
      [{ ...doc, pages: [...doc.pages, doc.pages[0]] }, /is in the document twice/],
      [{ ...doc, pages: [{ ...page0, document: { ...page0.document, slug: '../etc/passwd' } }] }, /slug/],
      [{ ...doc, pages: Array.from({ length: 2001 }, () => page0) }, /pages/],
      [{ ...doc, surprise: true }, /surprise/],
    ];
    for (const [document, message] of cases) {
      const res = await call(app, b.who, 'POST', importUrl(false), { document, records: b.records });
      expectErrorBody(res, 400);
      expect(JSON.stringify(res.body), JSON.stringify(document).slice(0, 200)).toMatch(message);
    }
    // Everything wrong at once: every problem listed (at most 50), nothing written.
    const bad = { ...doc, modules: [], pages: doc.pages.map((p: Record<string, any>) => ({ ...p, document: { ...p.document, modules: Array.from({ length: 30 }, (_, i) => ({ id: `m${i}`, module: 'ghost', fields: {}, hidden: false })) } })) };
    const many = await call(app, b.who, 'POST', importUrl(false), { document: bad, records: b.records });
    expectErrorBody(many, 400);
    expect(many.body.errors).toHaveLength(50);
    expect(many.body.message).toMatch(/150 problems \(the first 50 listed\); nothing was written/);
    // Larger than the import's body limit: 413 with the error body.
    const huge = await app.inject({ method: 'POST', url: importUrl(), headers: { ...b.who.headers, 'content-type': 'application/json' }, payload: JSON.stringify({ document: { ...doc, filler: 'x'.repeat(IMPORT_LIMIT) } }) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ status: 413, requestId: expect.any(String), errors: [expect.objectContaining({ correctionSuggestion: expect.any(String) })] });
    expect(await eventCount(b.who.companyUuid)).toBe(before);
  });

  it('answers 401, 403 without webpages:write or a company, and never reads or writes another company', async () => {
    const b = await aTarget();
    const reader = await joinCompany(app, b.who, { role: 'USER' });
    const nobody = await signUp(app);
    for (const [method, url, body] of [['GET', '/api/v2/cms/export', undefined], ['POST', importUrl(), { document: doc }]] as const) {
      expectErrorBody(await call(app, null, method, url, body), 401);
      expectErrorBody(await call(app, reader, method, url, body), 403);
      expectErrorBody(await call(app, nobody, method, url, body), 403);
    }
    const writer = await joinCompany(app, b.who, { role: 'USER', scopes: ['webpages:write'] });
    expect((await call(app, writer, 'POST', importUrl(), { document: doc, records: b.records })).status).toBe(200);
    // B's export holds none of A's site; A's records named in B's import are not B's: a 400, and A is untouched.
    expect(await data(app, b.who, 'GET', '/api/v2/cms/export')).toMatchObject({ source: { companyUuid: b.who.companyUuid }, pages: [], menus: [], environments: [] });
    const aEvents = await eventCount(a.companyUuid);
    const res = await call(app, b.who, 'POST', importUrl(false), { document: doc });
    expectErrorBody(res, 400, 'NOT_FOUND');
    expect(res.body.errors[0].correctionSuggestion).toMatch(/records/);
    expect(await eventCount(a.companyUuid)).toBe(aEvents);
    expect((await data(app, a, 'GET', '/api/v2/cms/export')).pages).toHaveLength(5);
  });
});
