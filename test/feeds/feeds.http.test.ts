import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObject, aProperty, call, data, expectErrorBody } from '../schema/schema-fixtures.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { feedsProjection } from '../../projections/feeds.projection.js';
import { xmlSafe } from '../../src/feeds/feed-writers.js';
import { feedPages } from '../../src/feeds/feed-records.js';
import { feedByUuid } from '../../read-models/feeds.queries.js';

let t: TestApp;
let owner: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

const parser = new XMLParser({ ignoreAttributes: false, parseTagValue: false, trimValues: false, isArray: (name) => name === 'item' || name === 'job' });

/** A job object with title, city, salary and a `status` to filter on, and `n` records. */
async function jobsOf(who: TestTenant, rows: { title: string; city?: string; salary?: number; status?: string }[]) {
  const jobs = await anObject(t.app, who);
  await aProperty(t.app, who, jobs.uuid, { name: 'title' });
  await aProperty(t.app, who, jobs.uuid, { name: 'city' });
  await aProperty(t.app, who, jobs.uuid, { name: 'status' });
  await aProperty(t.app, who, jobs.uuid, { name: 'salary', type: 'number', format: 'number' });
  const uuids: string[] = [];
  for (const r of rows) uuids.push((await data(t.app, who, 'POST', `/api/v2/${jobs.name}`, { properties: r })).uuid);
  return { jobs, uuids };
}

const fetchFeed = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

const feedBody = (objectUuid: string, format: string, extra: Record<string, unknown> = {}) => ({
  objectUuid,
  format,
  title: 'Open jobs',
  homeUrl: 'https://jobs.example.com',
  filters: [{ key: 'status', operator: 'equals', value: 'open' }],
  sort: [{ key: 'salary', direction: 'desc' }],
  fields: [
    { key: 'title', as: 'title' },
    { key: 'city', as: 'city' },
    { key: 'salary', as: 'salary' },
  ],
  ...extra,
});

describe('feed CRUD', () => {
  it('creates (with its public URL, shown once), reads, lists, updates, rotates, deletes and restores', async () => {
    const { jobs } = await jobsOf(owner, []);
    const created = await call(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'rss'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const feed = created.body.data;
    expect(feed).toMatchObject({
      objectUuid: jobs.uuid,
      objectName: jobs.name,
      format: 'rss',
      title: 'Open jobs',
      name: `${jobs.name}_feed`,
      enabled: true,
      filters: [{ key: 'status', operator: 'equals', value: 'open' }],
      sort: [{ key: 'salary', direction: 'desc' }],
      fields: [{ key: 'title', as: 'title' }, { key: 'city', as: 'city' }, { key: 'salary', as: 'salary' }],
      createdBy: { uuid: owner.userUuid },
      revision: 0,
      deletedAt: null,
    });
    expect(feed.publicUrl).toMatch(/^\/api\/v2\/feeds\/public\/[A-Za-z0-9_-]{43}$/);
    const { publicUrl, ...stored } = feed;
    const read = await data(t.app, owner, 'GET', `/api/v2/feeds/${feed.uuid}`);
    expect(read).toEqual(stored);
    expect(JSON.stringify(read)).not.toContain(publicUrl.split('/').at(-1));

    const updated = await data(t.app, owner, 'PUT', `/api/v2/feeds/${feed.uuid}`, { format: 'indeed', title: 'Jobs' });
    expect(updated).toMatchObject({ format: 'indeed', title: 'Jobs', revision: 1 });

    const list = await call(t.app, owner, 'POST', '/api/v2/feeds/index', { query: jobs.name });
    expect(list.body).toMatchObject({ total: 1, page: 0, perPage: 25, lastPage: 0 });
    expect(list.body.data[0].uuid).toBe(feed.uuid);

    const rotated = await data(t.app, owner, 'POST', `/api/v2/feeds/${feed.uuid}/rotate-token`);
    expect(rotated.publicUrl).not.toBe(publicUrl);
    expect((await fetchFeed(publicUrl)).statusCode).toBe(404);
    expect((await fetchFeed(rotated.publicUrl)).statusCode).toBe(200);

    expect((await call(t.app, owner, 'DELETE', `/api/v2/feeds/${feed.uuid}`)).body.data).toBe('deleted');
    expect((await call(t.app, owner, 'GET', `/api/v2/feeds/${feed.uuid}`)).status).toBe(404);
    expect((await fetchFeed(rotated.publicUrl)).statusCode).toBe(404);
    const deleted = await call(t.app, owner, 'POST', '/api/v2/feeds/index', { filters: [{ key: 'deleted', operator: 'equals', value: true }], query: jobs.name });
    expect(deleted.body.data.map((f: { uuid: string }) => f.uuid)).toEqual([feed.uuid]);
    const restored = await call(t.app, owner, 'POST', `/api/v2/feeds/${feed.uuid}/restore`);
    expect(restored.body.data).toMatchObject({ uuid: feed.uuid, deletedAt: null });
    expect((await fetchFeed(rotated.publicUrl)).statusCode).toBe(200);
    const again = await call(t.app, owner, 'POST', `/api/v2/feeds/${feed.uuid}/restore`);
    expectErrorBody(again, 409);
    expect(again.body.errors[0].correctionSuggestion).toBe('Only a deleted feed can be restored');
  });

  it('checks the definition against the object: every problem in one 400 with the error body', async () => {
    const { jobs } = await jobsOf(owner, []);
    const res = await call(t.app, owner, 'POST', '/api/v2/feeds', {
      objectUuid: jobs.uuid,
      format: 'json',
      filters: [{ key: 'nope', operator: 'equals', value: 1 }],
      fields: [{ key: 'missing', as: 'title' }, { key: 'city', as: 'bad name' }, { key: 'city', as: 'title' }],
    });
    expectErrorBody(res, 400);
    const fields = res.body.errors.map((e: { message: string }) => e.message.split(':')[0]);
    expect(fields).toEqual(expect.arrayContaining(['body.fields.0.key', 'body.fields.1.as', 'body.fields.2.as']));
    expect(fields.some((f: string) => f.startsWith('body.filters'))).toBe(true);
    const other = await call(t.app, owner, 'POST', '/api/v2/feeds', { objectUuid: '00000000-0000-4000-8000-000000000000', format: 'json', fields: [{ key: 'uuid', as: 'id' }] });
    expectErrorBody(other, 400);
    expect(other.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^body\.objectUuid: /), type: 'NOT_FOUND' });
  });
});

describe('the public feed', () => {
  it('RSS 2.0: the filtered records in order, text escaped, forbidden characters dropped; parsed back', async () => {
    const { jobs, uuids } = await jobsOf(owner, [
      { title: 'Cook <head> & "chef"', city: 'Oslo\uFFFF', salary: 30, status: 'open' },
      { title: 'Baker ]]> \uFFFE', city: 'Bergen', salary: 50, status: 'open' },
      { title: 'Closed one', city: 'Oslo', salary: 99, status: 'closed' },
    ]);
    const feed = await data(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'rss', { description: 'All <open> jobs' }));
    const res = await fetchFeed(feed.publicUrl);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
    expect(XMLValidator.validate(res.body)).toBe(true);
    const doc = parser.parse(res.body);
    expect(doc.rss['@_version']).toBe('2.0');
    expect(doc.rss.channel).toMatchObject({ title: 'Open jobs', link: 'https://jobs.example.com', description: 'All <open> jobs' });
    const items = doc.rss.channel.item;
    expect(items.map((i: Record<string, unknown>) => i.title)).toEqual(['Baker ]]> ', 'Cook <head> & "chef"']);
    expect(items.map((i: Record<string, unknown>) => i['record:city'])).toEqual(['Bergen', 'Oslo']);
    expect(items.map((i: Record<string, unknown>) => i['record:salary'])).toEqual(['50', '30']);
    expect(items.map((i: { guid: { '#text': string } }) => i.guid['#text'])).toEqual([uuids[1], uuids[0]]);
    expect(Number.isFinite(Date.parse(items[0].pubDate))).toBe(true);
  });

  it('reads the records page by page through the engine, in the feed order, filtered, each page at most its size', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ title: `J${i}`, salary: (i * 5) % 7, status: i === 3 ? 'closed' : 'open' }));
    const { jobs, uuids } = await jobsOf(owner, rows);
    const feed = await data(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'json'));
    const row = (await feedByUuid(t.platform.db, owner.companyUuid, feed.uuid))!;
    const pages: string[][] = [];
    for await (const page of feedPages(t.platform.db, row, () => false, 2)) pages.push(page.map((r) => r.uuid));
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
    const expected = rows.map((r, i) => ({ ...r, uuid: uuids[i]! })).filter((r) => r.status === 'open').sort((a, b) => b.salary - a.salary).map((r) => r.uuid);
    expect(pages.flat()).toEqual(expected);
    // A client gone: the reading stops.
    let n = 0;
    for await (const _ of feedPages(t.platform.db, row, () => n++ > 0, 2)) void _;
    expect(n).toBe(2);
  });

  it('characters XML forbids are dropped, the rest kept (xmlSafe)', () => {
    expect(xmlSafe('a\u0000b\u0001c\u000bd\tz\n\r\uFFFE\uFFFF\ud800e\u{1F600}')).toBe('abcd\tz\n\re\u{1F600}');
  });

  it('the Indeed job XML: <source> with one <job> per record, referencenumber and date by default; parsed back', async () => {
    const { jobs, uuids } = await jobsOf(owner, [{ title: 'Welder', city: 'Tromsø', salary: 40, status: 'open' }]);
    const feed = await data(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'indeed', { fields: [{ key: 'title', as: 'title' }, { key: 'city', as: 'city' }, { key: 'createdAt', as: 'date' }, { key: 'uuid', as: 'url' }] }));
    const res = await fetchFeed(feed.publicUrl);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    const doc = parser.parse(res.body);
    expect(doc.source).toMatchObject({ publisher: 'Open jobs', publisherurl: 'https://jobs.example.com' });
    expect(doc.source.job).toEqual([{ title: 'Welder', city: 'Tromsø', date: expect.stringMatching(/GMT$/), url: uuids[0], referencenumber: uuids[0] }]);
  });

  it('JSON Feed 1.1: items with id, mapped item fields and the rest under _record', async () => {
    const { jobs, uuids } = await jobsOf(owner, [{ title: 'Driver', city: 'Bodø', salary: 10, status: 'open' }]);
    const feed = await data(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'json'));
    const res = await fetchFeed(feed.publicUrl);
    expect(res.headers['content-type']).toBe('application/feed+json; charset=utf-8');
    const doc = res.json();
    expect(doc).toMatchObject({ version: 'https://jsonfeed.org/version/1.1', title: 'Open jobs', home_page_url: 'https://jobs.example.com' });
    expect(doc.feed_url).toMatch(/\/api\/v2\/feeds\/public\/[A-Za-z0-9_-]{43}$/);
    expect(doc.items).toEqual([{ id: uuids[0], title: 'Driver', content_text: 'Driver', date_published: expect.any(String), date_modified: expect.any(String), _record: { city: 'Bodø', salary: 10 } }]);
  });

  it('ETag and Last-Modified from the change count: 304 on a matching If-None-Match, 200 again after a record changes', async () => {
    const { jobs, uuids } = await jobsOf(owner, [{ title: 'A', status: 'open', salary: 1 }]);
    const feed = await data(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'json'));
    const first = await fetchFeed(feed.publicUrl);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"\d+\.\d+"$/);
    expect(first.headers['last-modified']).toMatch(/GMT$/);
    const same = await fetchFeed(feed.publicUrl, { 'if-none-match': etag });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    expect((await fetchFeed(feed.publicUrl, { 'if-none-match': `"x", W/${etag}` })).statusCode).toBe(304);
    expect((await fetchFeed(feed.publicUrl, { 'if-modified-since': first.headers['last-modified'] as string })).statusCode).toBe(304);
    await data(t.app, owner, 'PUT', `/api/v2/${jobs.name}/${uuids[0]}`, { properties: { title: 'B' } });
    const after = await fetchFeed(feed.publicUrl, { 'if-none-match': etag });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    expect(after.json().items[0].title).toBe('B');
  });

  it('hostile tokens: malformed, unknown, huge or disabled are one 404 that names nothing', async () => {
    const { jobs } = await jobsOf(owner, []);
    const feed = await data(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'rss'));
    await data(t.app, owner, 'PUT', `/api/v2/feeds/${feed.uuid}`, { enabled: false });
    for (const url of [feed.publicUrl, '/api/v2/feeds/public/abc', `/api/v2/feeds/public/${'A'.repeat(43)}`, `/api/v2/feeds/public/${encodeURIComponent("' or 1=1 --")}`]) {
      const res = await fetchFeed(url);
      expect(res.statusCode, url).toBe(404);
      const body = res.json();
      expect(body.status).toBe(404);
      expect(JSON.stringify(body)).not.toMatch(/tenant|sql|stack|rm_feeds/i);
    }
    expect((await fetchFeed(`/api/v2/feeds/public/${'A'.repeat(5000)}`)).statusCode).toBeGreaterThanOrEqual(400);
  });
});

describe('feed routes: 401 / 403 / 404 and another company', () => {
  it('answers 401 without a token, 403 without the scope, 404 for another company', async () => {
    const [a, b] = await twoTenants(t.app);
    const { jobs } = await jobsOf(a, []);
    const feed = await data(t.app, a, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'rss'));
    const routes = [
      ['POST', '/api/v2/feeds', feedBody(jobs.uuid, 'rss')],
      ['POST', '/api/v2/feeds/index', {}],
      ['GET', `/api/v2/feeds/${feed.uuid}`, undefined],
      ['PUT', `/api/v2/feeds/${feed.uuid}`, { title: 'x' }],
      ['DELETE', `/api/v2/feeds/${feed.uuid}`, undefined],
      ['POST', `/api/v2/feeds/${feed.uuid}/restore`, undefined],
      ['POST', `/api/v2/feeds/${feed.uuid}/rotate-token`, undefined],
    ] as const;
    const user = await joinCompany(t.app, a, { role: 'USER', scopes: [] });
    const reader = await joinCompany(t.app, a, { role: 'USER', scopes: ['feeds:read'] });
    for (const [method, url, body] of routes) {
      expect((await call(t.app, null, method, url, body)).status, `${method} ${url}`).toBe(401);
      expectErrorBody(await call(t.app, user, method, url, body), 403);
    }
    expect((await call(t.app, reader, 'GET', `/api/v2/feeds/${feed.uuid}`)).status).toBe(200);
    expect((await call(t.app, reader, 'PUT', `/api/v2/feeds/${feed.uuid}`, { title: 'x' })).status).toBe(403);
    for (const [method, url, body] of routes.slice(2)) {
      const res = await call(t.app, b, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect((await call(t.app, b, 'POST', '/api/v2/feeds/index', {})).body.total).toBe(0);
    const theirs = await call(t.app, b, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'rss'));
    expectErrorBody(theirs, 400);
    expect(theirs.body.errors[0].type).toBe('NOT_FOUND');
  });
});

describe('rebuild of rm_feeds', () => {
  it('replaying the log gives the same rows, the token hashes included', async () => {
    const { jobs } = await jobsOf(owner, []);
    const f1 = await data(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'rss'));
    const f2 = await data(t.app, owner, 'POST', '/api/v2/feeds', feedBody(jobs.uuid, 'json', { name: 'second' }));
    await data(t.app, owner, 'POST', `/api/v2/feeds/${f1.uuid}/rotate-token`);
    await data(t.app, owner, 'DELETE', `/api/v2/feeds/${f2.uuid}`);
    const rows = () => t.platform.db.query('select * from rm_feeds order by tenant, feed_uuid');
    const live = await rows();
    await rebuildReadModels(t.platform.db, t.platform.store, [feedsProjection]);
    expect(await rows()).toEqual(live);
    // No event carries a token in clear.
    const all = await t.platform.store.readAll({ maxCount: 100_000 });
    const text = JSON.stringify(all.filter((e) => e.type.startsWith('Feed')));
    expect(text).toContain('tokenHash');
    expect(text).not.toContain(f1.publicUrl.split('/').at(-1));
  });
});
