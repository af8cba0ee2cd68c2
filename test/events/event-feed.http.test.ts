import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUp, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { appendProbes, openStream, type SseEvent } from './sse.js';

let t: TestApp;
let base: string;
let a: TestTenant;
let b: TestTenant;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', EVENT_FEED_POLL_MS: '50', EVENT_FEED_HEARTBEAT_MS: '200' });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  [a, b] = await twoTenants(t.app);
});
afterAll(async () => t?.close());

const STREAM = '/api/v2/events/stream';
const probes = (events: SseEvent[]) => events.filter((e) => e.event === 'FeedProbe').map((e) => JSON.parse(e.data) as { streamId: string; data: { i: number }; position: number; tenant: string });

describe('GET events/stream', () => {
  it("sends the company's events in log order, each with its place as the id, and heartbeats", async () => {
    const written = await appendProbes(t.platform.store, a.companyUuid, 'probe-order', 5);
    const s = await openStream(base, `${STREAM}?stream=probe-order`, a.headers);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const got = await s.take(5);
    expect(got.map((e) => e.id)).toEqual(written.map((e) => e.checkpoint));
    expect(probes(got).map((e) => e.data.i)).toEqual([0, 1, 2, 3, 4]);
    expect(probes(got)[0]).toMatchObject({ tenant: a.companyUuid, streamId: 'probe-order', position: written[0]!.position, type: 'FeedProbe', revision: 0 });
    // Live: what is written while the stream is open arrives too.
    const more = await appendProbes(t.platform.store, a.companyUuid, 'probe-order', 2);
    expect((await s.take(7)).slice(5).map((e) => e.id)).toEqual(more.map((e) => e.checkpoint));
    await new Promise((r) => setTimeout(r, 500));
    expect(s.comments).toContain('heartbeat');
    s.close();
  });

  it('resumes after Last-Event-ID (or ?after=) with nothing lost and nothing twice, writes made while away included', async () => {
    const first = await appendProbes(t.platform.store, a.companyUuid, 'probe-resume', 6);
    const s1 = await openStream(base, `${STREAM}?stream=probe-resume`, a.headers);
    await s1.take(6);
    s1.close();
    const last = s1.events[3]!.id!;
    const away = await appendProbes(t.platform.store, a.companyUuid, 'probe-resume', 4);
    const s2 = await openStream(base, `${STREAM}?stream=probe-resume&after=0:0`, { ...a.headers, 'last-event-id': last });
    const rest = await s2.take(6);
    expect(rest.map((e) => e.id)).toEqual([...first.slice(4), ...away].map((e) => e.checkpoint));
    s2.close();
    const s3 = await openStream(base, `${STREAM}?stream=probe-resume&after=${encodeURIComponent(last)}`, a.headers);
    expect((await s3.take(6)).map((e) => e.id)).toEqual(rest.map((e) => e.id));
    s3.close();
  });

  it('after=now sends only what is written after the request', async () => {
    await appendProbes(t.platform.store, a.companyUuid, 'probe-now', 3);
    const s = await openStream(base, `${STREAM}?stream=probe-now&after=now`, a.headers);
    await new Promise((r) => setTimeout(r, 200));
    const next = await appendProbes(t.platform.store, a.companyUuid, 'probe-now', 1);
    expect((await s.take(1)).map((e) => e.id)).toEqual([next[0]!.checkpoint]);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.events).toHaveLength(1);
    s.close();
  });

  it('filters by type, stream (a prefix* too), object and requestId', async () => {
    await appendProbes(t.platform.store, a.companyUuid, 'probe-f-one', 2, { requestId: 'feed-filter-req' });
    await appendProbes(t.platform.store, a.companyUuid, 'probe-f-two', 3, { type: 'FeedOther', data: { objectName: 'contact' } });
    const team = await t.app.inject({ method: 'POST', url: '/api/v2/teams', headers: { ...a.headers, 'x-request-id': 'feed-team-req' }, payload: { name: 'Feeders' } });
    expect(team.statusCode).toBe(201);
    const count = async (query: string, n: number) => {
      const s = await openStream(base, `${STREAM}?${query}`, a.headers);
      const got = await s.take(n + 1, 700);
      s.close();
      return got;
    };
    expect((await count('type=FeedOther', 3)).map((e) => e.event)).toEqual(['FeedOther', 'FeedOther', 'FeedOther']);
    expect(await count('stream=probe-f-*', 5)).toHaveLength(5);
    expect(await count('stream=probe-f-one,probe-f-two&type=FeedProbe', 2)).toHaveLength(2);
    expect((await count('requestId=feed-team-req', 1)).map((e) => e.event)).toEqual(['TeamCreated']);
    expect(await count('requestId=feed-filter-req&requestId=feed-team-req', 3)).toHaveLength(3);
    expect(await count('object=contact', 3)).toHaveLength(3);
    expect(await count('object=no-such-object', 0)).toHaveLength(0);
  });

  it("never sends another company's events, either way", async () => {
    await appendProbes(t.platform.store, b.companyUuid, 'probe-cross', 3);
    await appendProbes(t.platform.store, a.companyUuid, 'probe-cross', 2);
    const sa = await openStream(base, STREAM, a.headers);
    const sb = await openStream(base, STREAM, b.headers);
    await new Promise((r) => setTimeout(r, 600));
    sa.close();
    sb.close();
    const tenants = (events: SseEvent[]) => new Set(events.map((e) => (JSON.parse(e.data) as { tenant: string }).tenant));
    expect(tenants(sa.events)).toEqual(new Set([a.companyUuid]));
    expect(tenants(sb.events)).toEqual(new Set([b.companyUuid]));
    expect(probes(sa.events).filter((e) => e.streamId === 'probe-cross')).toHaveLength(2);
    expect(probes(sb.events).filter((e) => e.streamId === 'probe-cross')).toHaveLength(3);
  });
});

describe('GET events/stream refusals', () => {
  const refused = async (path: string, headers: Record<string, string>, status: number) => {
    const s = await openStream(base, path, headers);
    expect(s.status).toBe(status);
    const body = (await s.json()) as { status: number; errors: { correctionSuggestion: string }[]; requestId: string };
    expect(body.status).toBe(status);
    expect(body.requestId).toBeTruthy();
    expect(body.errors[0]!.correctionSuggestion).toBeTruthy();
    return body;
  };

  it('401 without a token, 403 for a role without the event log', async () => {
    await refused(STREAM, {}, 401);
    const user = await joinCompany(t.app, a, { role: 'USER' });
    const body = await refused(STREAM, user.headers, 403);
    expect(body).toMatchObject({ roles: ['ADMIN'] });
    const dev = await joinCompany(t.app, a, { role: 'DEVELOPER', scopes: ['webhooks:read'] });
    await refused(STREAM, dev.headers, 403);
    await refused(STREAM, (await signUp(t.app)).headers, 403);
  });

  it('HEAD opens no feed', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: STREAM, headers: a.headers });
    expect(res.statusCode).toBe(405);
  });

  it('400 with a correction for a bad Last-Event-ID, after or filter', async () => {
    await refused(`${STREAM}?after=12`, a.headers, 400);
    await refused(`${STREAM}?after=x:1`, a.headers, 400);
    await refused(STREAM, { ...a.headers, 'last-event-id': 'now' }, 400);
    await refused(STREAM, { ...a.headers, 'last-event-id': '1:99999999999999999' }, 400);
    await refused(`${STREAM}?type=record_created`, a.headers, 400);
    await refused(`${STREAM}?stream=a*b`, a.headers, 400);
    await refused(`${STREAM}?object=${'x'.repeat(101)}`, a.headers, 400);
    await refused(`${STREAM}?requestId=${encodeURIComponent('a b')}`, a.headers, 400);
    await refused(`${STREAM}?topic=x`, a.headers, 400);
    // Hostile input: NUL characters and huge values are refused with the error body, never read.
    await refused(`${STREAM}?requestId=a%00b`, a.headers, 400);
    await refused(`${STREAM}?stream=record-%00*`, a.headers, 400);
    await refused(`${STREAM}?type=${'A'.repeat(5000)}`, a.headers, 400);
  });
});
