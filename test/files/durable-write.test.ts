import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DurableWriteStream, unwritten, WRITE_BACK_EVERY } from '../../src/files/storage/durable-write.js';

const dir = mkdtempSync(join(tmpdir(), 'durable-write-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `n` chunks of `size` random bytes, handed over as a socket would (one at a time, asynchronously). */
function chunks(n: number, size: number, failAt = -1, beforeChunk: (i: number) => void = () => {}) {
  const all = Array.from({ length: n }, () => randomBytes(size));
  async function* gen() {
    for (let i = 0; i < n; i++) {
      if (i === failAt) throw new Error('client went away');
      await new Promise((r) => setImmediate(r));
      beforeChunk(i);
      yield all[i]!;
    }
  }
  return { all, body: Readable.from(gen()) };
}

describe('DurableWriteStream (the local adapter\'s writer)', () => {
  it('writes every byte in order and starts write-back while the body is still coming', async () => {
    let startedBeforeLastChunk = 0;
    const { all, body } = chunks(96, 64 << 10, -1, (i) => {
      if (i === 95) startedBeforeLastChunk = out.writeBacks;
    });
    const path = join(dir, 'a.part');
    const out = new DurableWriteStream(path, { writeBackEvery: 512 << 10 });
    await pipeline(body, out);
    expect(readFileSync(path).equals(Buffer.concat(all))).toBe(true);
    // 6 MiB with write-back every 512 KiB, writes of 1 MiB: when the last chunk is asked for, at
    // most 2 MiB wait in the streams' buffers (16 chunks in each), so the first write is done and a
    // write-back has started. How many more start depends on how long each fdatasync takes (one at
    // a time): a loaded machine may finish only the first.
    expect(startedBeforeLastChunk).toBeGreaterThanOrEqual(1);
  });

  it('starts no write-back for a file smaller than the interval (small uploads pay only the final fsync)', async () => {
    const { all, body } = chunks(8, 64 << 10);
    const path = join(dir, 'b.part');
    const out = new DurableWriteStream(path);
    await pipeline(body, out);
    expect(readFileSync(path).length).toBe(Buffer.concat(all).length);
    expect(out.writeBacks).toBe(0);
    expect(WRITE_BACK_EVERY).toBeGreaterThan(8 * (64 << 10));
  });

  it('a body failing while write-back runs rejects with its error and leaves the file closed', async () => {
    // 6.25 MiB before the failure, at most 2 MiB of it still in the streams' buffers: the first
    // write is done, so a write-back has started.
    const { body } = chunks(120, 64 << 10, 100);
    const path = join(dir, 'c.part');
    const out = new DurableWriteStream(path, { writeBackEvery: 256 << 10 });
    await expect(pipeline(body, out)).rejects.toThrow('client went away');
    expect(out.writeBacks).toBeGreaterThanOrEqual(1);
    // The fd is closed once any write-back in flight is done (never under it).
    if (!out.closed) await new Promise<void>((r) => out.once('close', () => r()));
    expect(out.closed).toBe(true);
  });

  it('writes chunks of any size in order across its gathered writes', async () => {
    const sizes = [1, 3 << 20, 100 << 10, 7, 1 << 20, (1 << 20) - 1, 2, 512 << 10];
    const all = sizes.map((n) => randomBytes(n));
    const path = join(dir, 'e.part');
    await pipeline(Readable.from(all), new DurableWriteStream(path, { writeBackEvery: 1 << 20 }));
    expect(readFileSync(path).equals(Buffer.concat(all))).toBe(true);
  });

  it('after a short writev, what is left is exactly the bytes not yet written', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 20 }), { maxLength: 6 }), fc.nat(), (arrays, k) => {
        const buffers = arrays.map((a) => Buffer.from(a));
        const whole = Buffer.concat(buffers);
        const n = whole.length === 0 ? 0 : k % (whole.length + 1);
        expect(Buffer.concat(unwritten(buffers, n)).equals(whole.subarray(n))).toBe(true);
      }),
    );
  });

  it('never writes over an existing file (wx)', async () => {
    const path = join(dir, 'd.part');
    writeFileSync(path, 'kept');
    await expect(pipeline(Readable.from([Buffer.from('new')]), new DurableWriteStream(path))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(path, 'utf8')).toBe('kept');
  });
});
