import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OffThreadHash } from '../../src/files/off-thread-hash.js';

const MiB = 1 << 20;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Feeds `data` in chunks of the given sizes, waiting whenever the hash asks to. */
async function hashInChunks(data: Buffer, sizes: number[]): Promise<string> {
  const h = new OffThreadHash();
  let at = 0;
  for (let i = 0; at < data.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length]!);
    if (!h.update(data.subarray(at, at + n))) await h.drained();
    at += n;
  }
  return h.digest();
}

describe('SHA-256 off the main thread', () => {
  const big = randomBytes(12 * MiB + 12345);

  it('gives the digest of the bytes for any chunking, small and past the batch and backlog sizes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: big.length }), fc.array(fc.integer({ min: 1, max: 3 * MiB }), { minLength: 1, maxLength: 6 }), async (length, sizes) => {
        const data = big.subarray(0, length);
        expect(await hashInChunks(data, sizes)).toBe(sha(data));
      }),
      { numRuns: 25 },
    );
  });

  it('hashes right when the caller does not wait (more batches than the shared slots)', async () => {
    const h = new OffThreadHash();
    h.update(big.subarray(0, 1000));
    h.update(big.subarray(1000));
    expect(await h.digest()).toBe(sha(big));
    // The slots came back: the next upload on the same worker is right too.
    expect(await hashInChunks(big, [64 * 1024])).toBe(sha(big));
  });

  it('frees its worker when an upload is dropped midway, and hashes right when every worker is busy', async () => {
    for (let i = 0; i < 5; i++) {
      const dropped = new OffThreadHash();
      dropped.update(big.subarray(0, 3 * MiB));
      dropped.dispose();
    }
    const parts = [big.subarray(0, 5 * MiB), big.subarray(MiB, 9 * MiB), big.subarray(2 * MiB, 4 * MiB), big];
    const digests = await Promise.all(parts.map((p) => hashInChunks(p, [64 * 1024, 700 * 1024])));
    expect(digests).toEqual(parts.map(sha));
  });
});
