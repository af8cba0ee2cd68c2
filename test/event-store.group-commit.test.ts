import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../aggregates/kernel/errors.js';
import type { Projection } from '../projections/projection.js';
import type { Db } from '../src/db/db.js';
import type { AppendResult, EventStore, ExpectedStreamRevision } from '../src/event-store/port.js';
import { createPostgresEventStore } from '../src/event-store/postgres.store.js';
import { anEvent, events } from './support/builders.js';
import { onPostgres, openTestDb } from './support/test-db.js';

// One commit at a time: while an append commits, the appends that arrive wait and then commit
// together, so everything after the first append of each burst below is one group.
let db: Db;
let store: EventStore;

/** A read model with a unique key: a second `Claimed` of one name fails its append. */
const claims: Projection = {
  name: 'test-claims',
  tables: ['test_claims'],
  handles: ['Claimed'],
  async apply(event, tx) {
    await tx.query('insert into test_claims (name, stream_id) values ($1, $2)', [(event.data as { name: string }).name, event.streamId]);
  },
};

beforeAll(async () => {
  db = await openTestDb();
  await db.exec('create table if not exists test_claims (name text primary key, stream_id text not null)');
  store = await createPostgresEventStore({ db, projections: [claims], maxConcurrentCommits: 1 });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const stream = () => `gc-${randomUUID()}`;
const settle = (ps: Promise<AppendResult>[]) => Promise.allSettled(ps);
const txOf = (r: AppendResult) => r.events[0]!.checkpoint.split(':')[0];

describe(`group commit on ${onPostgres ? 'PostgreSQL' : 'PGlite'}`, () => {
  it('commits a burst of appends together, checking each one’s expected revision on its own', async () => {
    const [a, b, c, d, e] = [stream(), stream(), stream(), stream(), stream()];
    await store.append('tenant-a', a, events(2), { expectedStreamRevision: 'no_stream' });
    await store.append('tenant-a', b, events(1), { expectedStreamRevision: 'no_stream' });
    const burst: [string, ExpectedStreamRevision, number][] = [
      [stream(), 'any', 1], // commits alone, while the others queue
      [a, 1, 2], // exact: passes
      [b, 5, 1], // exact: stale, b is at 0
      [c, 'no_stream', 3], // passes
      [d, 'stream_exists', 1], // d does not exist
      [e, 'any', 2], // new stream
      [a + '-x', -1, 1], // a negative number means no_stream
    ];
    const results = await settle(burst.map(([s, expected, n]) => store.append('tenant-a', s, events(n), { expectedStreamRevision: expected })));
    const ok = (i: number) => (results[i] as PromiseFulfilledResult<AppendResult>).value;
    const failed = (i: number) => (results[i] as PromiseRejectedResult).reason as DomainError;

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(ok(1).events.map((x) => x.revision)).toEqual([2, 3]);
    expect(ok(3).events.map((x) => x.revision)).toEqual([0, 1, 2]);
    expect(ok(5).events.map((x) => x.revision)).toEqual([0, 1]);
    expect(ok(6).nextRevision).toBe(0);
    expect([failed(2).code, failed(2).extra.actualRevision]).toEqual(['WRONG_EXPECTED_REVISION', 0]);
    expect([failed(4).code, failed(4).extra.actualRevision]).toEqual(['WRONG_EXPECTED_REVISION', -1]);
    // Everything after the first waited for a commit, then committed as one transaction.
    expect(new Set([1, 3, 5, 6].map((i) => txOf(ok(i)))).size).toBe(1);
    // In submission order in the log, and nothing written for the refused ones.
    const positions = [1, 3, 5, 6].flatMap((i) => ok(i).events.map((x) => x.position));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
    expect((await store.readStream('tenant-a', b)).map((x) => x.revision)).toEqual([0]);
    expect(await store.readStream('tenant-a', d)).toEqual([]);
    expect((await store.readStream('tenant-a', a)).map((x) => x.revision)).toEqual([0, 1, 2, 3]);
  });

  it('fails only the append whose projection fails; the rest of its group commits', async () => {
    const name = `n-${randomUUID()}`;
    const streams = Array.from({ length: 6 }, stream);
    const results = await settle(
      streams.map((s, i) => store.append('tenant-a', s, [anEvent('Claimed', { name: i === 3 || i === 4 ? name : `${name}-${i}` })], { expectedStreamRevision: 'no_stream' })),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[4] as PromiseRejectedResult).reason)).toMatch(/duplicate key|unique/i);
    const rows = await db.query<{ name: string; stream_id: string }>('select name, stream_id from test_claims where name like $1 order by name', [`${name}%`]);
    expect(rows.map((r) => r.stream_id).sort()).toEqual([0, 1, 2, 3, 5].map((i) => streams[i]).sort());
    expect(await store.readStream('tenant-a', streams[4]!)).toEqual([]);
    for (const i of [0, 1, 2, 3, 5]) expect((await store.readStream('tenant-a', streams[i]!)).length).toBe(1);
  });

  it('fails only the append whose in-transaction hook throws', async () => {
    const streams = Array.from({ length: 4 }, stream);
    const results = await settle(
      streams.map((s, i) =>
        store.append('tenant-a', s, events(1), {
          expectedStreamRevision: 'no_stream',
          inTransaction: async () => {
            if (i === 2) throw new Error('hook refused');
          },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(((results[2] as PromiseRejectedResult).reason as Error).message).toBe('hook refused');
    expect(await store.readStream('tenant-a', streams[2]!)).toEqual([]);
  });

  it('never puts two appends of one stream in one group: a burst on one stream gets consecutive revisions', async () => {
    const s = stream();
    const results = await Promise.all(Array.from({ length: 8 }, () => store.append('tenant-a', s, events(2), { expectedStreamRevision: 'any' })));
    expect(results.flatMap((r) => r.events.map((x) => x.revision)).sort((x, y) => x - y)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect((await store.readStream('tenant-a', s)).map((x) => x.revision)).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });
});
