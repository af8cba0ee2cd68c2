import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeApi } from '../../cli/api.js';
import { tailEvents } from '../../cli/events-tail.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { appendProbes } from './sse.js';

let t: TestApp;
let base: string;
let a: TestTenant;

beforeAll(async () => {
  // Streams end after a second: the tail must resume them by id.
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', EVENT_FEED_POLL_MS: '50', EVENT_FEED_MAX_MS: '1000' });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  a = await signUpWithCompany(t.app);
});
afterAll(async () => t?.close());

it('platform events tail -f prints the last events, then each new one once, across the server cutting the stream', async () => {
  await appendProbes(t.platform.store, a.companyUuid, 'probe-tail', 3);
  const api = makeApi(base, a.token);
  const stop = new AbortController();
  const lines: { streamId: string; data: { i: number } }[] = [];
  const tail = tailEvents(api, { type: 'FeedProbe', last: 2, follow: true, json: true, signal: stop.signal }, (l) => lines.push(JSON.parse(l)));
  const until = async (n: number) => {
    for (let i = 0; i < 200 && lines.length < n; i++) await new Promise((r) => setTimeout(r, 25));
  };
  await until(2);
  await appendProbes(t.platform.store, a.companyUuid, 'probe-tail', 2);
  await until(4);
  // Past the stream's longest life: the server cut it, the tail came back after its last id.
  await new Promise((r) => setTimeout(r, 1500));
  await appendProbes(t.platform.store, a.companyUuid, 'probe-tail', 2);
  await until(6);
  await new Promise((r) => setTimeout(r, 200));
  stop.abort();
  await tail;
  await api.close();
  expect(lines.map((e) => e.data.i)).toEqual([1, 2, 0, 1, 0, 1]);
});
