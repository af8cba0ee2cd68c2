import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeEventFeeds } from '../../src/events/events.module.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { appendProbes, openStream, type SseEvent } from './sse.js';

let t: TestApp;
let base: string;
let a: TestTenant;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', EVENT_FEED_POLL_MS: '50', EVENT_FEED_MAX_BUFFERED_BYTES: '65536', EVENT_FEED_STALL_MS: '1000', EVENT_FEED_SCAN_ROWS: '200' });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  a = await signUpWithCompany(t.app);
});
afterAll(async () => t?.close());

const STREAM = '/api/v2/events/stream';
const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return check();
};
const order = (id: string) => id.split(':').map(BigInt) as [bigint, bigint];
const ascending = (ids: string[]) => ids.every((id, i) => i === 0 || (([t0, p0], [t1, p1]) => t1 > t0 || (t1 === t0 && p1 > p0))(order(ids[i - 1]!), order(id)));

/** Reads a whole SSE response with node:http, first holding it unread until `hold` resolves. */
function readHeld(path: string, headers: Record<string, string>, hold: Promise<unknown>, responded: () => void): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers }, (res) => {
      res.pause();
      responded();
      void hold.then(() => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`aborted after ${text.length} characters`)));
        res.resume();
        res.on('end', () =>
          resolve(
            text
              .split('\n\n')
              .filter((b) => /^data:/m.test(b))
              .map((b) => ({ id: /^id: (.*)$/m.exec(b)?.[1], event: /^event: (.*)$/m.exec(b)?.[1] ?? 'message', data: /^data: (.*)$/m.exec(b)![1]! })),
          ),
        );
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the feed under load', () => {
  it('a client that does not read is cut with a last message naming where to resume, and resumes from it with nothing lost', async () => {
    const written = [];
    for (let i = 0; i < 6; i++) written.push(...(await appendProbes(t.platform.store, a.companyUuid, `probe-slow-${i}`, 200, { pad: 16_000 })));
    let cut!: () => void;
    const wasCut = new Promise<void>((r) => (cut = r));
    let held!: Promise<SseEvent[]>;
    const responded = new Promise<void>((r) => {
      held = readHeld(`${STREAM}?stream=probe-slow-*`, a.headers, wasCut, r);
    });
    await responded;
    expect(await until(() => activeEventFeeds() === 0, 30_000)).toBe(true);
    cut();
    const first = await held;
    const last = first.at(-1)!;
    expect(last.event).toBe('cut');
    const body = JSON.parse(last.data) as { reason: string; resumeAfter: string; message: string };
    expect(body).toMatchObject({ reason: 'slow-client', resumeAfter: first.at(-2)!.id });
    expect(body.message).toMatch(/Last-Event-ID/);
    const got = first.slice(0, -1);
    expect(got.length).toBeLessThan(written.length);
    const rest = await openStream(base, `${STREAM}?stream=probe-slow-*`, { ...a.headers, 'last-event-id': body.resumeAfter });
    await rest.take(written.length - got.length, 30_000);
    rest.close();
    const ids = [...got, ...rest.events].map((e) => e.id!);
    expect(ids).toEqual(written.map((e) => e.checkpoint));
  });

  it('dropping 20 open streams leaves no feed reading, no timer running', async () => {
    const streams = await Promise.all(Array.from({ length: 20 }, () => openStream(base, `${STREAM}?after=now`, a.headers)));
    expect(await until(() => activeEventFeeds() === 20)).toBe(true);
    for (const s of streams) s.close();
    expect(await until(() => activeEventFeeds() === 0)).toBe(true);
  });

  it('concurrent writers: every event arrives once, in log order, across a reconnect', async () => {
    const s1 = await openStream(base, `${STREAM}?stream=probe-conc-*`, a.headers);
    const writers = Array.from({ length: 12 }, async (_, w) => {
      const mine = [];
      for (let i = 0; i < 15; i++) mine.push(...(await appendProbes(t.platform.store, a.companyUuid, `probe-conc-${w}`, 1 + (i % 3))));
      return mine;
    });
    await s1.take(40, 20_000);
    s1.close();
    await s1.ended;
    const firstPart = [...s1.events];
    const written = (await Promise.all(writers)).flat();
    const s2 = await openStream(base, `${STREAM}?stream=probe-conc-*`, { ...a.headers, 'last-event-id': firstPart.at(-1)!.id! });
    await s2.take(written.length - firstPart.length, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    s2.close();
    const ids = [...firstPart, ...s2.events].map((e) => e.id!);
    expect(ascending(ids)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(written.map((e) => e.checkpoint)));
  });
});

describe('the feed ends with a last message', () => {
  it('after its longest duration, and when the server stops', async () => {
    const other = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', EVENT_FEED_MAX_MS: '1000' });
    const otherBase = await other.app.listen({ host: '127.0.0.1', port: 0 });
    const admin = await signUpWithCompany(other.app);
    const short = await openStream(otherBase, STREAM, admin.headers);
    await short.ended;
    expect(short.events.at(-1)).toMatchObject({ event: 'cut' });
    expect(JSON.parse(short.events.at(-1)!.data)).toMatchObject({ reason: 'max-duration' });
    const open = await openStream(otherBase, `${STREAM}?after=now`, admin.headers);
    expect(await until(() => activeEventFeeds() === 1)).toBe(true);
    await other.close();
    await open.ended;
    expect(JSON.parse(open.events.at(-1)!.data)).toMatchObject({ reason: 'shutdown' });
    expect(activeEventFeeds()).toBe(0);
  });
});
