import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '../projections/projection.js';
import type { Db } from '../src/db/db.js';
import type { EventStore } from '../src/event-store/port.js';
import { createPostgresEventStore } from '../src/event-store/postgres.store.js';
import { anEvent } from './support/builders.js';
import { onPostgres, openTestDb } from './support/test-db.js';

// Multi-stream appends (`AppendOptions.together`, issue 18): all streams or none, alone or in a group commit.
let db: Db;
let store: EventStore;

const claims: Projection = {
  name: 'test-together-claims',
  tables: ['test_together_claims'],
  handles: ['Claimed'],
  async apply(event, tx) {
    await tx.query('insert into test_together_claims (name, stream_id) values ($1, $2)', [(event.data as { name: string }).name, event.streamId]);
  },
};

beforeAll(async () => {
  db = await openTestDb();
  await db.exec('create table if not exists test_together_claims (name text primary key, stream_id text not null)');
  store = await createPostgresEventStore({ db, projections: [claims], maxConcurrentCommits: 1 });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const stream = () => `tg-${randomUUID()}`;
const streamLength = async (id: string) => (await store.readStream('t', id)).length;
const withOthers = (main: string, others: string[], claim?: string) =>
  store.append('t', main, [anEvent('Opened', { n: 0 }, { tenant: 't' })], {
    expectedStreamRevision: 'no_stream',
    together: others.map((s, i) => ({ streamId: s, events: [anEvent(claim && i === others.length - 1 ? 'Claimed' : 'Opened', { name: claim ?? 'x', n: i + 1 }, { tenant: 't' })], expectedStreamRevision: 'no_stream' as const })),
  });

describe(`multi-stream appends on ${onPostgres ? 'PostgreSQL' : 'PGlite'}`, () => {
  it('appends every stream in one transaction and answers with all their events, its own first', async () => {
    const [a, b, c] = [stream(), stream(), stream()];
    const done = await withOthers(a, [b, c]);
    expect(done.events.map((e) => e.streamId)).toEqual([a, b, c]);
    expect(done.nextRevision).toBe(0);
    expect(new Set(done.events.map((e) => e.checkpoint.split(':')[0])).size).toBe(1);
  });

  it('a taken stream or a refused projection write leaves none of the streams behind', async () => {
    const [a, b, taken] = [stream(), stream(), stream()];
    await store.append('t', taken, [anEvent('Opened', {}, { tenant: 't' })], { expectedStreamRevision: 'no_stream' });
    await expect(withOthers(a, [b, taken])).rejects.toMatchObject({ code: 'WRONG_EXPECTED_REVISION' });
    expect([await streamLength(a), await streamLength(b), await streamLength(taken)]).toEqual([0, 0, 1]);
    const name = `n-${randomUUID()}`;
    await withOthers(stream(), [stream()], name);
    const [c, d] = [stream(), stream()];
    await expect(withOthers(c, [d], name)).rejects.toMatchObject({ code: '23505' });
    expect([await streamLength(c), await streamLength(d)]).toEqual([0, 0]);
  });

  it('in a group commit with other appends, each lands or fails on its own', async () => {
    const name = `g-${randomUUID()}`;
    const mains = Array.from({ length: 6 }, stream);
    const results = await Promise.allSettled([
      ...mains.map((m, i) => withOthers(m, [stream(), stream()], i === 5 ? name : undefined)),
      withOthers(stream(), [stream()], name),
      store.append('t', stream(), [anEvent('Opened', {}, { tenant: 't' })], { expectedStreamRevision: 'no_stream' }),
    ]);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    for (const m of mains.slice(0, 5)) expect(await streamLength(m)).toBe(1);
  });
});
