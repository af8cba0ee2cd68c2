import { describe, expect, it } from 'vitest';
import { batchQueue } from '../src/db/batch-queue.js';

// The queue behind group commit and batched reads (src/db/batch-queue.ts).
function recorder(maxInFlight: number, maxBatch = 64) {
  const flushes: string[][] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const q = batchQueue<string>({
    maxInFlight,
    maxBatch,
    key: (item) => item.split(':')[0]!,
    flush: async (batch) => {
      flushes.push(batch);
      await gate;
    },
  });
  return { q, flushes, release };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('batch queue', () => {
  it('spreads the items of one turn over the free flushes, in submission order', async () => {
    const { q, flushes, release } = recorder(4);
    for (let i = 0; i < 14; i++) q.submit(`k${i}`);
    await turn();
    expect(flushes.map((f) => f.length)).toEqual([4, 4, 3, 3]);
    expect(flushes.flat()).toEqual(Array.from({ length: 14 }, (_, i) => `k${i}`));
    release();
  });

  it('gathers what arrives while every flush runs into the next, up to maxBatch; one key per flush', async () => {
    const { q, flushes, release } = recorder(1, 3);
    q.submit('a:1');
    await turn();
    for (const item of ['b:1', 'a:2', 'c:1', 'd:1', 'e:1']) q.submit(item);
    await turn();
    expect(flushes).toEqual([['a:1']]);
    release();
    await turn();
    await turn();
    // Waiting: b:1 a:2 c:1 d:1 e:1; a flush of 3, then the rest.
    expect(flushes.slice(1)).toEqual([['b:1', 'a:2', 'c:1'], ['d:1', 'e:1']]);
    expect(q.waiting).toBe(0);
  });

  it('never puts two items of one key in one flush', async () => {
    const { q, flushes, release } = recorder(1);
    for (const item of ['s:1', 's:2', 't:1', 's:3']) q.submit(item);
    release();
    for (let i = 0; i < 6; i++) await turn();
    expect(flushes).toEqual([['s:1', 't:1'], ['s:2'], ['s:3']]);
  });
});
