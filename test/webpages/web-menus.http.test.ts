import { describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany } from '../support/actors.js';
import { aPage, aSite, call, data, expectErrorBody, patchUrl, unique, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite({ subdomain: 'menus' });

const menus = (query: string) => `/api/v2/webpages/public/getMenus?subdomain=${cms.subdomain}${query}`;

describe('web menus', () => {
  it('creates, lists, reads, updates, deletes and restores a menu; names are unique per environment among live menus', async () => {
    const { page } = await aPage(cms.app, cms.owner, cms.site);
    const items = [{ label: 'Home', url: '/' }, { label: 'Jobs', pageUuid: page.uuid, children: [{ label: 'Mail', url: 'mailto:jobs@example.test' }] }, { label: 'More', children: [{ label: 'Docs', url: 'https://example.test/docs', children: [{ label: 'Deep', url: '/deep' }] }] }];
    const created = await call(cms.app, cms.owner, 'POST', '/api/v2/webmenus', { name: 'main', label: 'Main', items });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const m = created.body.data;
    expect(m).toMatchObject({ name: 'main', label: 'Main', environment: 'production', items, revision: 0, deletedAt: null });
    expect(await data(cms.app, cms.owner, 'GET', `/api/v2/webmenus/${m.uuid}`)).toEqual(m);
    expectErrorBody(await call(cms.app, cms.owner, 'POST', '/api/v2/webmenus', { name: 'main' }), 409);
    const footer = await data(cms.app, cms.owner, 'POST', '/api/v2/webmenus', { name: 'footer' });
    expect(footer).toMatchObject({ label: 'footer', items: [] });
    const list = await call(cms.app, cms.owner, 'POST', '/api/v2/webmenus/index', {});
    expect(list.body).toMatchObject({ total: 2, page: 0 });
    expect(list.body.data.map((d: { name: string }) => d.name)).toEqual(['footer', 'main']);

    const updated = await data(cms.app, cms.owner, 'PUT', `/api/v2/webmenus/${m.uuid}`, { label: 'Main menu', items: [{ label: 'Home', url: '/' }] });
    expect(updated).toMatchObject({ label: 'Main menu', items: [{ label: 'Home', url: '/' }], revision: 1 });
    expectErrorBody(await call(cms.app, cms.owner, 'PUT', `/api/v2/webmenus/${footer.uuid}`, { name: 'main' }), 409);

    expect((await call(cms.app, cms.owner, 'DELETE', `/api/v2/webmenus/${m.uuid}`)).body.data).toBe('deleted');
    const deleted = await data(cms.app, cms.owner, 'GET', `/api/v2/webmenus/${m.uuid}`);
    expect(deleted.deletedAt).toBeGreaterThan(0);
    expect(deleted.deletedBy).toMatchObject({ uuid: cms.owner.userUuid });
    expectErrorBody(await call(cms.app, cms.owner, 'PUT', `/api/v2/webmenus/${m.uuid}`, { label: 'x' }), 409);
    expectErrorBody(await call(cms.app, cms.owner, 'DELETE', `/api/v2/webmenus/${m.uuid}`), 409);
    expect((await call(cms.app, cms.owner, 'POST', '/api/v2/webmenus/index', {})).body.data.map((d: { name: string }) => d.name)).toEqual(['footer']);
    const bin = await call(cms.app, cms.owner, 'POST', '/api/v2/webmenus/index', { filters: [{ key: 'deleted', operator: 'equals', value: true }] });
    expect(bin.body.data.map((d: { uuid: string }) => d.uuid)).toEqual([m.uuid]);

    // While it is deleted its name is free; restoring it then is a 409, after a rename of the other it works.
    const taker = await data(cms.app, cms.owner, 'POST', '/api/v2/webmenus', { name: 'main' });
    expectErrorBody(await call(cms.app, cms.owner, 'POST', `/api/v2/webmenus/${m.uuid}/restore`), 409);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webmenus/${taker.uuid}`, { name: 'main-new' });
    expect((await call(cms.app, cms.owner, 'POST', `/api/v2/webmenus/${m.uuid}/restore`)).body.data).toBe('restored');
    expect(await data(cms.app, cms.owner, 'GET', `/api/v2/webmenus/${m.uuid}`)).toMatchObject({ name: 'main', label: 'Main menu', deletedAt: null, deletedBy: null, items: [{ label: 'Home', url: '/' }] });
    expectErrorBody(await call(cms.app, cms.owner, 'POST', `/api/v2/webmenus/${m.uuid}/restore`), 409);

    // The log has the menu's events, by request.
    const events = await cms.t.platform.db.query<{ type: string }>(`select type from events where stream_id = $1 order by revision`, [`web-menu-${m.uuid}`]);
    expect(events.map((e) => e.type)).toEqual(['WebMenuCreated', 'WebMenuUpdated', 'WebMenuDeleted', 'WebMenuRestored']);
  });

  it('refuses bad items with the error body: a url and a page, an unsafe url, another company\'s page, an unknown environment, four levels', async () => {
    const stranger = await signUpWithCompany(cms.app);
    const theirSite = await aSite(cms.app, stranger);
    const { page: theirs } = await aPage(cms.app, stranger, theirSite);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'a', items: [{ label: 'x', url: '/a', pageUuid: theirs.uuid }] }, /url or a pageUuid, not both/],
      [{ name: 'a', items: [{ label: 'x', url: 'javascript:alert(1)' }] }, /url/],
      [{ name: 'a', items: [{ label: 'x', children: [{ label: 'y', pageUuid: theirs.uuid }] }] }, /body\.items\.0\.children\.0\.pageUuid: page .* does not exist/],
      [{ name: 'a', environment: 'nowhere' }, /environment nowhere does not exist/],
      [{ name: 'a', items: [{ label: 'x', children: [{ label: 'y', children: [{ label: 'z', children: [{ label: 'w' }] }] }] }] }, /children/],
      [{ name: 'Bad Name' }, /name/],
      [{ name: 'a', colour: 'red' }, /colour/],
    ];
    for (const [body, message] of cases) {
      const res = await call(cms.app, cms.owner, 'POST', '/api/v2/webmenus', body);
      expectErrorBody(res, 400);
      expect(JSON.stringify(res.body), JSON.stringify(body)).toMatch(message);
    }
  });

  it('answers 401, 403 without webpages:write, and 404 for another company on every route', async () => {
    const m = await data(cms.app, cms.owner, 'POST', '/api/v2/webmenus', { name: unique('m').replace(/_/g, '-').toLowerCase() });
    const reader = await joinCompany(cms.app, cms.owner, { role: 'USER' });
    const stranger = await signUpWithCompany(cms.app);
    expectErrorBody(await call(cms.app, null, 'GET', `/api/v2/webmenus/${m.uuid}`), 401);
    expectErrorBody(await call(cms.app, null, 'POST', '/api/v2/webmenus', { name: 'x' }), 401);
    expect((await call(cms.app, reader, 'GET', `/api/v2/webmenus/${m.uuid}`)).status).toBe(200);
    expect((await call(cms.app, reader, 'POST', '/api/v2/webmenus/index', {})).status).toBe(200);
    expectErrorBody(await call(cms.app, reader, 'POST', '/api/v2/webmenus', { name: 'x' }), 403);
    expectErrorBody(await call(cms.app, reader, 'PUT', `/api/v2/webmenus/${m.uuid}`, { label: 'x' }), 403);
    expectErrorBody(await call(cms.app, reader, 'DELETE', `/api/v2/webmenus/${m.uuid}`), 403);
    expectErrorBody(await call(cms.app, reader, 'POST', `/api/v2/webmenus/${m.uuid}/restore`), 403);
    for (const [method, path, body] of [['GET', '', undefined], ['PUT', '', { label: 'x' }], ['DELETE', '', undefined], ['POST', '/restore', undefined]] as const) {
      expectErrorBody(await call(cms.app, stranger, method, `/api/v2/webmenus/${m.uuid}${path}`, body), 404);
    }
    expect((await call(cms.app, stranger, 'POST', '/api/v2/webmenus/index', {})).body.total).toBe(0);
    // Deleted by its owner, then restored by a stranger: still a 404, and the menu stays deleted.
    await data(cms.app, cms.owner, 'DELETE', `/api/v2/webmenus/${m.uuid}`);
    expectErrorBody(await call(cms.app, stranger, 'POST', `/api/v2/webmenus/${m.uuid}/restore`), 404);
    expect((await data(cms.app, cms.owner, 'GET', `/api/v2/webmenus/${m.uuid}`)).deletedAt).not.toBeNull();
  });

  it('lists live menus publicly, linking pages only while they are live', async () => {
    await data(cms.app, cms.owner, 'POST', '/api/v2/cms/environments', { key: 'preview', label: 'Preview' });
    const { page: live } = await aPage(cms.app, cms.owner, cms.site);
    const { page: draft } = await aPage(cms.app, cms.owner, cms.site);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${live.uuid}/publish`, {});
    const items = [{ label: 'Live', pageUuid: live.uuid }, { label: 'Draft', pageUuid: draft.uuid, children: [{ label: 'Gone', url: '/gone' }] }, { label: 'Out', url: 'https://example.test' }];
    const nav = await data(cms.app, cms.owner, 'POST', '/api/v2/webmenus', { name: 'nav', items });
    await data(cms.app, cms.owner, 'POST', '/api/v2/webmenus', { name: 'nav', environment: 'preview', items: [] });
    const res = await call(cms.app, null, 'GET', menus('&environment=production&name=nav'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ total: 1, page: 0 });
    expect(res.body.data).toEqual([
      {
        uuid: nav.uuid,
        name: 'nav',
        label: 'nav',
        environment: 'production',
        items: [
          { label: 'Live', href: `/production/${live.slug}`, pageUuid: live.uuid, locale: 'en', children: [] },
          { label: 'Out', href: 'https://example.test', pageUuid: null, locale: null, children: [] },
        ],
      },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/createdBy|tenant|revision/);
    expect((await call(cms.app, null, 'GET', menus('&name=nav'))).body.data.map((d: { environment: string }) => d.environment)).toEqual(['preview', 'production']);
    const paged = await call(cms.app, null, 'GET', menus('&limit=1&page=1'));
    expect(paged.body).toMatchObject({ page: 1, perPage: 1 });
    expect(paged.body.data).toHaveLength(1);
    await data(cms.app, cms.owner, 'DELETE', `/api/v2/webmenus/${nav.uuid}`);
    expect((await call(cms.app, null, 'GET', menus('&environment=production&name=nav'))).body.total).toBe(0);
    // Another subdomain sees nothing; hostile input is a 400.
    expect((await call(cms.app, null, 'GET', `/api/v2/webpages/public/getMenus?subdomain=nobody-${unique('x').replace(/_/g, '-')}`)).body.total).toBe(0);
    expectErrorBody(await call(cms.app, null, 'GET', `/api/v2/webpages/public/getMenus?subdomain=${encodeURIComponent("x' or 1=1")}`), 400);
    expectErrorBody(await call(cms.app, null, 'GET', menus('&limit=5000')), 400);
    expectErrorBody(await call(cms.app, null, 'GET', '/api/v2/webpages/public/getMenus'), 400);
  });
});

describe('public previews', () => {
  it('lists the live pages a listing component names, paginated, in the layout asked for', async () => {
    await data(cms.app, cms.owner, 'POST', '/api/v2/modules', { name: 'listing', fields: [{ name: 'object', type: 'text' }] });
    const listing = await aSite(cms.app, cms.owner); // an object of its own: its pages are the ones below
    const { page: home, record: homeRecord } = await aPage(cms.app, cms.owner, listing);
    const res0 = await call(cms.app, cms.owner, 'POST', patchUrl(homeRecord.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { id: 'list1', module: 'listing' } }, { op: 'addModule', module: { id: 'hidden1', module: 'listing', hidden: true } }] });
    expect(res0.status, JSON.stringify(res0.body)).toBe(200);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${home.uuid}/publish`, {});
    const posts = [];
    for (let i = 0; i < 3; i++) {
      const { page } = await aPage(cms.app, cms.owner, listing, { excerpt: `Excerpt ${i}`, seo: { image: `/img/${i}.png` } });
      await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
      posts.push(page);
    }
    await aPage(cms.app, cms.owner, listing); // a draft: never previewed
    const secret = (await aPage(cms.app, cms.owner, listing, { protection: { type: 'password', password: 'sesame' } })).page;
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${secret.uuid}/publish`, {});
    const url = (component: string, layout: string, sub = cms.subdomain) => `/api/v2/webpages/public/previews/${home.uuid}/${component}/${layout}?subdomain=${sub}`;

    // The object's other live pages (this test's object only has these), newest first; a protected one shows its path only.
    const cards = await call(cms.app, null, 'POST', url('list1', 'card'), { limit: 3 });
    expect(cards.status, JSON.stringify(cards.body)).toBe(200);
    expect(cards.body).toMatchObject({ total: 4, page: 0, perPage: 3, lastPage: 1 });
    expect(cards.body.data[0]).toEqual({ uuid: secret.uuid, rootSlug: 'production', slug: secret.slug, locale: 'en', protected: true, title: null, excerpt: null, image: null });
    expect(cards.body.data[1]).toEqual({ uuid: posts[2]!.uuid, rootSlug: 'production', slug: posts[2]!.slug, locale: 'en', protected: false, title: posts[2]!.title, excerpt: 'Excerpt 2', image: '/img/2.png' });
    const next = await call(cms.app, null, 'POST', url('list1', 'card'), { limit: 3, page: 1 });
    expect(next.body.data.map((p: { uuid: string }) => p.uuid)).toEqual([posts[0]!.uuid]);
    const compact = await call(cms.app, null, 'POST', url('list1', 'compact'), {});
    expect(compact.body.data[1]).toEqual({ uuid: posts[2]!.uuid, rootSlug: 'production', slug: posts[2]!.slug, locale: 'en', protected: false, title: posts[2]!.title });
    expect(compact.body.data.map((p: { uuid: string }) => p.uuid)).not.toContain(home.uuid);

    // A component naming another object lists that object's pages (none here).
    const res1 = await call(cms.app, cms.owner, 'POST', patchUrl(homeRecord.uuid), { locale: 'en', expectedRevision: 1, patches: [{ op: 'setField', moduleId: 'list1', field: 'object', value: 'no_such_object' }] });
    expect(res1.status).toBe(200);
    expect((await call(cms.app, null, 'POST', url('list1', 'list'), {})).body.total).toBe(0);

    // Not live, a missing or hidden component, another company's subdomain: the same 404; a bad layout or component id: 400.
    expectErrorBody(await call(cms.app, null, 'POST', url('nope', 'card'), {}), 404);
    expectErrorBody(await call(cms.app, null, 'POST', url('hidden1', 'card'), {}), 404);
    const other = await signUpWithCompany(cms.app, { subdomain: unique('oth').replace(/_/g, '-') });
    expect(other).toBeTruthy();
    expectErrorBody(await call(cms.app, null, 'POST', url('list1', 'card', `nobody-${unique('x').replace(/_/g, '-')}`), {}), 404);
    expectErrorBody(await call(cms.app, null, 'POST', url('list1', 'grid'), {}), 400);
    expectErrorBody(await call(cms.app, null, 'POST', url(encodeURIComponent("' or 1=1"), 'card'), {}), 400);
    expectErrorBody(await call(cms.app, null, 'POST', url('list1', 'card'), { limit: 100_000 }), 400);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${home.uuid}/unpublish`, {});
    expectErrorBody(await call(cms.app, null, 'POST', url('list1', 'card'), {}), 404);
  });

  it('applies the page protection to its previews', async () => {
    const { page, record } = await aPage(cms.app, cms.owner, cms.site, { protection: { type: 'password', password: 'sesame' } });
    await data(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { id: 'l', module: 'listing' } }] });
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    const url = `/api/v2/webpages/public/previews/${page.uuid}/l/list?subdomain=${cms.subdomain}`;
    expectErrorBody(await call(cms.app, null, 'POST', url, {}), 401);
    const res = await cms.app.inject({ method: 'POST', url, payload: {}, headers: { 'x-page-password': 'sesame' } });
    expect(res.statusCode, res.body).toBe(200);
  });
});
