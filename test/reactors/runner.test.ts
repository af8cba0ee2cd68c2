import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import type { EventStore } from '../../src/event-store/port.js';
import { createPostgresEventStore } from '../../src/event-store/postgres.store.js';
import { startReactor, type Reactor } from '../../src/reactors/runner.js';
import { anEvent } from '../support/builders.js';
import { openTestDb } from '../support/test-db.js';
import { waitFor } from '../support/webhook-receiver.js';

let db: Db;
let store: EventStore;
const log = pino({ level: 'silent' });

beforeAll(async () => {
  db = await openTestDb();
  store = await createPostgresEventStore({ db, pollMs: 50 });
  await db.exec('create table runner_seen (reactor text not null, position bigint not null, instance text not null)');
});
afterAll(async () => {
  await store.close();
  await db.close();
});

/** A reactor that writes one row per event it commits, tagged with the instance that committed it. */
function recorder(name: string, instance: string, opts: { failOnce?: number } = {}): Reactor<number[]> {
  let failed = false;
  return {
    name,
    handles: (e) => e.type === 'Happened',
    async prepare(events) {
      if (opts.failOnce !== undefined && !failed && events.some((e) => (e.data as { n: number }).n === opts.failOnce)) {
        failed = true;
        throw new Error('prepare failed once');
      }
      return events.map((e) => e.position);
    },
    async commit(positions, tx) {
      for (const p of positions) await tx.query('insert into runner_seen (reactor, position, instance) values ($1, $2, $3)', [name, p, instance]);
    },
  };
}

const seen = (name: string) => db.query<{ position: number; n: number }>('select position, count(*)::int as n from runner_seen where reactor = $1 group by position order by position', [name]);

describe('reactor runner', () => {
  it('two instances of one reactor commit every event exactly once between them', async () => {
    const name = 'test:twins';
    const first = await store.append('tenant-r', 'thing-1', Array.from({ length: 150 }, (_, n) => anEvent('Happened', { n }, { tenant: 'tenant-r' })), { expectedStreamRevision: 'any' });
    const a = startReactor(recorder(name, 'a'), { db, store, log, batchSize: 20, retryDelayMs: 20 });
    const b = startReactor(recorder(name, 'b'), { db, store, log, batchSize: 20, retryDelayMs: 20 });
    // More events while both are following the live feed.
    for (let i = 0; i < 5; i++) await store.append('tenant-r', `thing-${i + 2}`, Array.from({ length: 10 }, (_, n) => anEvent('Happened', { n: 1000 + n }, { tenant: 'tenant-r' })), { expectedStreamRevision: 'any' });
    const expected = 200;
    try {
      await waitFor(async () => (await seen(name)).length === expected, 20_000, 'every event committed');
    } finally {
      await a.stop();
      await b.stop();
    }
    const rows = await seen(name);
    expect(rows).toHaveLength(expected);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(rows[0]!.position).toBe(first.events[0]!.position);
    const [cp] = await db.query<{ checkpoint: string }>('select checkpoint from checkpoints where name = $1', [name]);
    expect(cp!.checkpoint).not.toBe('');
  });

  it('a failed batch is retried from the stored checkpoint; a restarted runner goes on where it stopped', async () => {
    const name = 'test:retry';
    if ((await store.readAll({ maxCount: 10_000 })).length === 0) {
      await store.append('tenant-r', 'thing-x', Array.from({ length: 100 }, (_, n) => anEvent('Happened', { n: 1000 + n }, { tenant: 'tenant-r' })), { expectedStreamRevision: 'any' });
    }
    const total = (await store.readAll({ maxCount: 10_000 })).filter((e) => e.type === 'Happened').length;
    const r1 = startReactor(recorder(name, 'r1', { failOnce: 1003 }), { db, store, log, batchSize: 50, retryDelayMs: 20 });
    await waitFor(async () => (await seen(name)).length === total, 20_000, 'caught up despite one failure');
    await r1.stop();
    await store.append('tenant-r', 'thing-late', [anEvent('Happened', { n: 5000 }, { tenant: 'tenant-r' })], { expectedStreamRevision: 'any' });
    const r2 = startReactor(recorder(name, 'r2'), { db, store, log });
    try {
      await waitFor(async () => (await seen(name)).length === total + 1, 10_000, 'the late event');
    } finally {
      await r2.stop();
    }
    const rows = await seen(name);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const [late] = await db.query<{ instance: string }>('select instance from runner_seen where reactor = $1 order by position desc limit 1', [name]);
    expect(late!.instance).toBe('r2');
  });
});
