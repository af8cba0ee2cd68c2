import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { joinCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { networkOf } from '../../src/tracking/visitor.js';
import { expectErrorBody } from './billing-fixtures.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';

let t: TestApp;
let admin: TestTenant;
let other: TestTenant;
let user: TestTenant;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', TRACKING_ROLLUP_MS: '0', TRACKING_MAX_PENDING: '4' });
  [admin, other] = await twoTenants(t.app);
  user = await joinCompany(t.app, admin, { role: 'USER' });
  const res = await t.app.inject({ method: 'POST', url: '/api/v2/tracking/site/key', headers: admin.headers });
  expect(res.statusCode, res.body).toBe(201);
  key = res.json().data.siteKey;
}, 120_000);
afterAll(async () => t?.close());

const inject = (o: InjectOptions) => t.app.inject(o);
const pageview = (path: string) => ({ eventId: randomUUID(), type: 'pageview' as const, path });
const collect = (events: unknown[], o: { ua?: string; ip?: string; headers?: Record<string, string>; siteKey?: string; batchId?: string } = {}) =>
  inject({
    method: 'POST',
    url: '/api/v2/tracking/collect',
    remoteAddress: o.ip ?? '203.0.113.77',
    headers: { 'user-agent': o.ua ?? CHROME, ...o.headers },
    payload: { siteKey: o.siteKey ?? key, batchId: o.batchId ?? randomUUID(), events },
  });
const stats = async (who: TestTenant) => {
  const res = await inject({ method: 'GET', url: '/api/v2/tracking/stats', headers: who.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { days: { views: number; events: number; visitors: number }[]; pages: { path: string; views: number; visitors: number }[] };
};

describe('site keys and stats: 401 / 403 / 404 matrix', () => {
  it('only an ADMIN reads, issues and rotates the key and reads the stats', async () => {
    for (const [method, url] of [['GET', '/api/v2/tracking/site'], ['POST', '/api/v2/tracking/site/key'], ['GET', '/api/v2/tracking/stats']] as const) {
      expectErrorBody(await inject({ method, url }), 401);
      expectErrorBody(await inject({ method, url, headers: user.headers }), 403);
    }
    expect((await inject({ method: 'GET', url: '/api/v2/tracking/site', headers: admin.headers })).json().data).toEqual({ siteKey: key });
  });

  it('another company has its own key and sees none of these counts (cross-tenant)', async () => {
    expect((await inject({ method: 'GET', url: '/api/v2/tracking/site', headers: other.headers })).json().data).toEqual({ siteKey: null });
    expect((await collect([pageview('/x')])).statusCode).toBe(202);
    expect((await stats(other)).days).toEqual([]);
  });

  it('an unknown key is 404, a missing one 400, a hostile body 400', async () => {
    expectErrorBody(await collect([pageview('/')], { siteKey: 'site_unknown_key_0000' }), 404);
    expectErrorBody(await inject({ method: 'POST', url: '/api/v2/tracking/collect', headers: { 'user-agent': CHROME }, payload: { batchId: randomUUID(), events: [pageview('/')] } }), 400);
    expectErrorBody(await collect([{ ...pageview('/'), path: 'no-slash' }]), 400);
    expectErrorBody(await collect(Array.from({ length: 101 }, () => pageview('/'))), 400);
    expectErrorBody(await collect([]), 400);
  });
});

describe('the ingest', () => {
  it('counts page views, custom events and unique visitors per page and day; a retried batch counts once', async () => {
    const [a] = await twoTenants(t.app);
    const k = (await inject({ method: 'POST', url: '/api/v2/tracking/site/key', headers: a.headers })).json().data.siteKey;
    const batch = [pageview('/home?utm=secret#top'), pageview('/home'), pageview('/pricing'), { eventId: randomUUID(), type: 'event', name: 'signup', path: '/pricing' }];
    const batchId = randomUUID();
    expect((await collect(batch, { siteKey: k, batchId })).json()).toEqual({ received: 4, kept: true });
    expect((await collect(batch, { siteKey: k, batchId })).statusCode).toBe(202); // the retry
    expect((await collect([pageview('/home')], { siteKey: k, ua: FIREFOX, ip: '198.51.100.9' })).statusCode).toBe(202);
    const s = await stats(a);
    expect(s.days).toEqual([expect.objectContaining({ views: 4, events: 1, visitors: 2 })]);
    expect(s.pages).toEqual([
      { path: '/home', views: 3, events: 0, visitors: 2 },
      { path: '/pricing', views: 1, events: 1, visitors: 1 },
    ]);
    const rows = await t.platform.db.query<{ network: string; browser: string; os: string; path: string; visitor: string }>('select network, browser, os, path, visitor from tracking_events where tenant = $1 order by received_at', [a.companyUuid]);
    expect(rows).toHaveLength(5);
    const chrome = rows.filter((r) => r.network === '203.0.113.0/24');
    expect(chrome.map((r) => r.path).sort()).toEqual(['/home', '/home', '/pricing', '/pricing']);
    for (const r of chrome) expect(r).toMatchObject({ browser: 'Chrome 120', os: 'Windows' });
    // No full address anywhere in the row.
    expect(JSON.stringify(rows)).not.toContain('203.0.113.77');
    expect(rows.filter((r) => r.network === '198.51.100.0/24')).toEqual([expect.objectContaining({ browser: 'Firefox 121', os: 'Linux', path: '/home' })]);
    expect(new Set(rows.map((r) => r.visitor)).size).toBe(2);
  });

  it('DNT or Sec-GPC keeps nothing, nor does a bot', async () => {
    const before = (await t.platform.db.query<{ n: number }>('select count(*)::int8 as n from tracking_events')).at(0)!.n;
    expect((await collect([pageview('/')], { headers: { dnt: '1' } })).json()).toEqual({ received: 1, kept: false });
    expect((await collect([pageview('/')], { headers: { 'sec-gpc': '1' } })).json()).toEqual({ received: 1, kept: false });
    expect((await collect([pageview('/')], { ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' })).json()).toEqual({ received: 1, kept: false });
    expect((await collect([pageview('/')], { ua: '' })).json()).toEqual({ received: 1, kept: false });
    expect((await t.platform.db.query<{ n: number }>('select count(*)::int8 as n from tracking_events')).at(0)!.n).toBe(before);
  });

  it('a rotated key stops working', async () => {
    const [a] = await twoTenants(t.app);
    const first = (await inject({ method: 'POST', url: '/api/v2/tracking/site/key', headers: a.headers })).json().data.siteKey;
    const second = (await inject({ method: 'POST', url: '/api/v2/tracking/site/key', headers: a.headers })).json().data.siteKey;
    expect(second).not.toBe(first);
    expect((await collect([pageview('/')], { siteKey: first })).statusCode).toBe(404);
    expect((await collect([pageview('/')], { siteKey: second })).statusCode).toBe(202);
  });

  it('when the queue is full it answers 429 with Retry-After and keeps nothing of that batch', async () => {
    const sends = await Promise.all(Array.from({ length: 40 }, () => collect([pageview('/burst')])));
    const codes = sends.map((r) => r.statusCode);
    expect(codes.every((c) => c === 202 || c === 429)).toBe(true);
    const refused = sends.filter((r) => r.statusCode === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.headers['retry-after']).toBe('1');
      expectErrorBody(r, 429);
    }
    const s = await stats(admin);
    const burst = s.pages.find((p) => p.path === '/burst')?.views ?? 0;
    expect(burst).toBe(codes.filter((c) => c === 202).length);
  });
});

describe('addresses', () => {
  it('are cut to /24 (IPv4, also when mapped in IPv6) and /48 (IPv6)', () => {
    expect(networkOf('192.0.2.201')).toBe('192.0.2.0/24');
    expect(networkOf('::ffff:192.0.2.201')).toBe('192.0.2.0/24');
    expect(networkOf('2001:db8:abcd:12:1:2:3:4')).toBe('2001:db8:abcd::/48');
    expect(networkOf('not an address')).toBe('unknown');
  });
});
