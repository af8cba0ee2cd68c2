import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Subscription } from 'rxjs';
import { DomainError } from '../aggregates/kernel/errors.js';
import type { StoredEvent } from '../aggregates/kernel/events.js';
import type { Db } from '../src/db/db.js';
import type { EventStore } from '../src/event-store/port.js';
import { createPostgresEventStore } from '../src/event-store/postgres.store.js';
import { events } from './support/builders.js';
import { onPostgres, openTestDb } from './support/test-db.js';

let db: Db;
let store: EventStore;

beforeAll(async () => {
  db = await openTestDb();
  store = await createPostgresEventStore({ db, pollMs: 100 });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const isConflict = (e: unknown) => e instanceof DomainError && e.code === 'WRONG_EXPECTED_REVISION';

describe('concurrent appends to one stream', () => {
  it('100 appends at the same expected revision: exactly one wins', async () => {
    const s = `race-${randomUUID()}`;
    await store.append('tenant-a', s, events(5), { expectedStreamRevision: 'no_stream' });
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () => store.append('tenant-a', s, events(1), { expectedStreamRevision: 4 })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(99);
    expect(rejected.every((r) => isConflict(r.reason))).toBe(true);
    const stored = await store.readStream('tenant-a', s);
    expect(stored.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  // Each conflict costs a re-read and a retry: n writers make about n²/2 attempts, so 30 keeps
  // the test quick on a loaded machine while every writer still collides.
  const WRITERS = 30;
  it(`${WRITERS} writers retrying on conflict: one winner per revision, no gap, no duplicate`, async () => {
    const s = `retry-${randomUUID()}`;
    const wins: number[] = [];
    let conflicts = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (;;) {
          const last = await store.readStream('tenant-a', s, { direction: 'backwards', maxCount: 1 });
          const expected = last.length === 0 ? -1 : last[0]!.revision;
          try {
            const r = await store.append('tenant-a', s, [{ ...events(1)[0]!, data: { writer } }], { expectedStreamRevision: expected });
            wins.push(r.nextRevision);
            return;
          } catch (err) {
            if (!isConflict(err)) throw err;
            conflicts++;
          }
        }
      }),
    );
    expect([...wins].sort((a, b) => a - b)).toEqual(Array.from({ length: WRITERS }, (_, i) => i));
    const stored = await store.readStream('tenant-a', s);
    expect(stored.map((e) => e.revision)).toEqual(Array.from({ length: WRITERS }, (_, i) => i));
    expect(new Set(stored.map((e) => (e.data as { writer: number }).writer)).size).toBe(WRITERS);
    if (onPostgres) expect(conflicts).toBeGreaterThan(0);
  });
});

describe('a live subscriber under concurrent writers', () => {
  it('sees every committed event exactly once, in global order, late commits included', async () => {
    const durationMs = onPostgres ? 10_000 : 2_000;
    const [head] = await db.query<{ c: string | null }>(
      `select transaction_id::text || ':' || position as c from events order by transaction_id desc, position desc limit 1`,
    );
    const seen: StoredEvent[] = [];
    const sub: Subscription = store.subscribe({ after: head?.c ?? undefined }).subscribe({ next: (e) => seen.push(e) });
    const until = Date.now() + durationMs;
    let appended = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        let i = 0;
        while (Date.now() < until) {
          // Every third append of some writers holds its transaction open a while after taking
          // its position, so it commits after appends that came later.
          const slow = writer % 2 === 0 && i % 3 === 0;
          await store.append('tenant-a', `w-${writer}`, events(1 + (i % 3)), {
            expectedStreamRevision: 'any',
            inTransaction: slow ? async (tx) => void (await tx.query('select pg_sleep(0.02)')) : undefined,
          });
          appended += 1 + (i % 3);
          i++;
        }
      }),
    );
    const deadline = Date.now() + 10_000;
    while (seen.length < appended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    sub.unsubscribe();

    const expectedOrder = await db.query<{ position: number }>(
      `select position from events where stream_id like 'w-%' order by transaction_id, position`,
    );
    const seenPositions = seen.filter((e) => e.streamId.startsWith('w-')).map((e) => e.position);
    expect(appended).toBeGreaterThan(50);
    expect(seenPositions.length).toBe(appended);
    expect(new Set(seenPositions).size).toBe(seenPositions.length);
    expect(seenPositions).toEqual(expectedOrder.map((r) => r.position));
  });
});
