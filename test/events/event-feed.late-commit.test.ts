import { afterAll, beforeAll, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { onPostgres } from '../support/test-db.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { appendProbes, openStream } from './sse.js';

// Concurrent transactions need PostgreSQL: PGlite has one connection, so nothing commits out of order.
let t: TestApp;
let base: string;
let a: TestTenant;

beforeAll(async () => {
  if (!onPostgres) return;
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', EVENT_FEED_POLL_MS: '50' });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  a = await signUpWithCompany(t.app);
});
afterAll(async () => t?.close());

/** A transaction that takes its id and position now and commits when released. */
async function holdOpen(streamId: string) {
  let release!: () => void;
  let inserted!: () => void;
  const wasInserted = new Promise<void>((r) => (inserted = r));
  const done = t.platform.db.transaction(async (tx) => {
    await tx.query(
      `insert into events (tenant, stream_id, revision, type, version, data, metadata, occurred_at)
       values ($1, $2, 0, 'FeedProbe', 1, '{"i":0}', $3, $4)`,
      [a.companyUuid, streamId, JSON.stringify({ tenant: a.companyUuid, userUuid: null, requestId: 'late', correlationId: 'late', causationId: null, occurredAt: Date.now(), schemaVersion: 1 }), Date.now()],
    );
    inserted();
    await new Promise<void>((r) => (release = r));
  });
  await wasInserted;
  return async () => {
    release();
    await done;
  };
}

const streamIds = (events: { data: string }[]) => events.map((e) => (JSON.parse(e.data) as { streamId: string }).streamId);

it.runIf(onPostgres)('an event that commits late is sent before what committed after it, never skipped', async () => {
  const s = await openStream(base, '/api/v2/events/stream?stream=probe-late-*&after=now', a.headers);
  const commit = await holdOpen('probe-late-slow');
  const fast = await appendProbes(t.platform.store, a.companyUuid, 'probe-late-fast', 2);
  await new Promise((r) => setTimeout(r, 500));
  // The fast events are committed, but an older transaction is still open: nothing is sent yet.
  expect(s.events).toEqual([]);
  await commit();
  const got = await s.take(3);
  s.close();
  expect(streamIds(got)).toEqual(['probe-late-slow', 'probe-late-fast', 'probe-late-fast']);
  expect(got.slice(1).map((e) => e.id)).toEqual(fast.map((e) => e.checkpoint));
});

it.runIf(onPostgres)('after=now leaves out what was committed before the request, even behind an open transaction', async () => {
  const commit = await holdOpen('probe-now-slow');
  await appendProbes(t.platform.store, a.companyUuid, 'probe-now-before', 2);
  const s = await openStream(base, '/api/v2/events/stream?stream=probe-now-*&after=now', a.headers);
  await new Promise((r) => setTimeout(r, 200));
  await appendProbes(t.platform.store, a.companyUuid, 'probe-now-after', 1);
  await commit();
  // The two events due (a transaction open elsewhere on the server, another test file's, can hold
  // the feed's safe position back for a while), then a moment for anything that should not come.
  await s.take(2);
  await s.take(3, 1000);
  s.close();
  expect(streamIds(s.events)).toEqual(['probe-now-slow', 'probe-now-after']);
});
