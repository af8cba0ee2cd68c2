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

it.runIf(onPostgres)('an event that commits late is sent before what committed after it, never skipped', async () => {
  const s = await openStream(base, '/api/v2/events/stream?stream=probe-late-*&after=now', a.headers);
  let release!: () => void;
  let inserted!: () => void;
  const wasInserted = new Promise<void>((r) => (inserted = r));
  // A transaction that takes its id and position first and commits last.
  const slow = t.platform.db.transaction(async (tx) => {
    await tx.query(
      `insert into events (tenant, stream_id, revision, type, version, data, metadata, occurred_at)
       values ($1, 'probe-late-slow', 0, 'FeedProbe', 1, '{"i":0}', $2, $3)`,
      [a.companyUuid, JSON.stringify({ tenant: a.companyUuid, userUuid: null, requestId: 'late', correlationId: 'late', causationId: null, occurredAt: Date.now(), schemaVersion: 1 }), Date.now()],
    );
    inserted();
    await new Promise<void>((r) => (release = r));
  });
  await wasInserted;
  const fast = await appendProbes(t.platform.store, a.companyUuid, 'probe-late-fast', 2);
  await new Promise((r) => setTimeout(r, 500));
  // The fast events are committed, but an older transaction is still open: nothing is sent yet.
  expect(s.events).toEqual([]);
  release();
  await slow;
  const got = await s.take(3);
  s.close();
  expect(got.map((e) => JSON.parse(e.data).streamId)).toEqual(['probe-late-slow', 'probe-late-fast', 'probe-late-fast']);
  expect(got.slice(1).map((e) => e.id)).toEqual(fast.map((e) => e.checkpoint));
});
