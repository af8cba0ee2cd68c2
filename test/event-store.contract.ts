import { describe, expect, it } from 'vitest';
import { firstValueFrom, take, toArray } from 'rxjs';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../aggregates/kernel/errors.js';
import type { EventStore } from '../src/event-store/port.js';
import { anEvent, events } from './support/builders.js';

const stream = () => `test-${randomUUID()}`;

async function conflictOf(p: Promise<unknown>) {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe('WRONG_EXPECTED_REVISION');
  return err as DomainError;
}

/** The contract every event-store adapter keeps. `getStore` is called inside each test. */
export function eventStoreContract(getStore: () => EventStore) {
  describe('append and expected revisions', () => {
    it('numbers a new stream from 0 and returns the last revision', async () => {
      const s = stream();
      const result = await getStore().append('tenant-a', s, events(3), { expectedStreamRevision: 'no_stream' });
      expect(result.nextRevision).toBe(2);
      expect(result.events.map((e) => e.revision)).toEqual([0, 1, 2]);
    });

    it('refuses no_stream when the stream exists, and reports the actual revision', async () => {
      const s = stream();
      await getStore().append('tenant-a', s, events(2), { expectedStreamRevision: 'no_stream' });
      const err = await conflictOf(getStore().append('tenant-a', s, events(1), { expectedStreamRevision: 'no_stream' }));
      expect(err.extra.actualRevision).toBe(1);
    });

    it('appends at the exact revision and refuses a stale one without writing', async () => {
      const s = stream();
      await getStore().append('tenant-a', s, events(2), { expectedStreamRevision: 'no_stream' });
      await getStore().append('tenant-a', s, events(1), { expectedStreamRevision: 1 });
      await conflictOf(getStore().append('tenant-a', s, events(1), { expectedStreamRevision: 1 }));
      const all = await getStore().readStream('tenant-a', s);
      expect(all.map((e) => e.revision)).toEqual([0, 1, 2]);
    });

    it('stream_exists refuses a missing stream; any appends either way', async () => {
      const s = stream();
      await conflictOf(getStore().append('tenant-a', s, events(1), { expectedStreamRevision: 'stream_exists' }));
      await getStore().append('tenant-a', s, events(1), { expectedStreamRevision: 'any' });
      const r = await getStore().append('tenant-a', s, events(2), { expectedStreamRevision: 'any' });
      expect(r.nextRevision).toBe(2);
      const r2 = await getStore().append('tenant-a', s, events(1), { expectedStreamRevision: 'stream_exists' });
      expect(r2.nextRevision).toBe(3);
    });

    it('keeps the streams of two tenants apart under one stream id', async () => {
      const s = stream();
      await getStore().append('tenant-a', s, events(2, 'tenant-a'), { expectedStreamRevision: 'no_stream' });
      await getStore().append('tenant-b', s, events(1, 'tenant-b'), { expectedStreamRevision: 'no_stream' });
      expect((await getStore().readStream('tenant-a', s)).length).toBe(2);
      const b = await getStore().readStream('tenant-b', s);
      expect(b.map((e) => [e.tenant, e.revision])).toEqual([['tenant-b', 0]]);
    });
  });

  describe('reading', () => {
    it('round-trips type, version, data and every metadata field', async () => {
      const s = stream();
      const e = anEvent('ThingRenamed', { name: 'x', nested: { a: [1, 2] } }, { userUuid: 'u-1', causationId: 'c-1' });
      await getStore().append('tenant-a', s, [{ ...e, version: 2 }], { expectedStreamRevision: 'no_stream' });
      const [read] = await getStore().readStream('tenant-a', s);
      expect(read).toMatchObject({ type: 'ThingRenamed', version: 2, data: e.data, metadata: e.metadata, streamId: s, tenant: 'tenant-a' });
    });

    it('reads forwards and backwards from a revision, with a max count', async () => {
      const s = stream();
      await getStore().append('tenant-a', s, events(5), { expectedStreamRevision: 'no_stream' });
      const fwd = await getStore().readStream('tenant-a', s, { fromRevision: 2, maxCount: 2 });
      expect(fwd.map((e) => e.revision)).toEqual([2, 3]);
      const back = await getStore().readStream('tenant-a', s, { direction: 'backwards', fromRevision: 3 });
      expect(back.map((e) => e.revision)).toEqual([3, 2, 1, 0]);
      const last = await getStore().readStream('tenant-a', s, { direction: 'backwards', maxCount: 1 });
      expect(last.map((e) => e.revision)).toEqual([4]);
      expect(await getStore().readStream('tenant-a', stream())).toEqual([]);
    });

    it('reads the global log after a checkpoint, in append order', async () => {
      const s1 = stream();
      const s2 = stream();
      const a = await getStore().append('tenant-a', s1, events(2), { expectedStreamRevision: 'no_stream' });
      await getStore().append('tenant-a', s2, events(1), { expectedStreamRevision: 'no_stream' });
      await getStore().append('tenant-a', s1, events(1), { expectedStreamRevision: 1 });
      // The log is read only below the oldest transaction still open anywhere on the server (gap
      // safety), so another test's open transaction may hold the newest events back for a while.
      const ours = async () =>
        (await getStore().readAll({ after: a.events[0]!.checkpoint, maxCount: 10_000 }))
          .filter((e) => e.streamId === s1 || e.streamId === s2)
          .map((e) => `${e.streamId === s1 ? 's1' : 's2'}@${e.revision}`);
      await expect.poll(ours, { timeout: 15_000, interval: 50 }).toEqual(['s1@1', 's2@0', 's1@2']);
    });
  });

  describe('subscription', () => {
    it('delivers what was appended before and after it started, once each', async () => {
      const s = stream();
      const before = await getStore().append('tenant-a', s, events(2), { expectedStreamRevision: 'no_stream' });
      const seen = firstValueFrom(getStore().subscribe({ after: before.events[0]!.checkpoint }).pipe(take(3), toArray()));
      await getStore().append('tenant-a', s, events(2), { expectedStreamRevision: 1 });
      const got = await seen;
      expect(got.map((e) => [e.streamId, e.revision])).toEqual([[s, 1], [s, 2], [s, 3]]);
    });
  });
}
