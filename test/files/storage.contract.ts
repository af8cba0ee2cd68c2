import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStorage } from '../../src/files/storage/storage.port.js';

export interface StorageUnderTest {
  storage: ObjectStorage;
  /** Fetches a signed URL the way a browser would (real HTTP on loopback). */
  fetchSigned(url: string): Promise<{ status: number; headers: Headers; body: Buffer }>;
  /** Files left behind beside the objects (temporary parts), when the adapter can tell. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

/** A stream that yields `bytes` in chunks, then fails: a client that went away mid-upload. */
export function failingStream(bytes: Buffer, chunk = 64 * 1024): Readable {
  let at = 0;
  return new Readable({
    read() {
      if (at >= bytes.length) {
        this.destroy(new Error('client went away'));
        return;
      }
      this.push(bytes.subarray(at, (at += chunk)));
    },
  });
}

const key = () => `files/${randomUUID()}/${randomUUID()}`;

/** The object-storage port's contract: every adapter passes it. */
export function storageContract(name: string, open: () => Promise<StorageUnderTest>) {
  describe(`object storage contract: ${name}`, () => {
    let s: StorageUnderTest;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(async () => s?.close());

    it('stores a stream and gives the same bytes back; delete removes it and is idempotent', async () => {
      const k = key();
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      expect(await s.storage.exists(k)).toBe(false);
      expect(await s.storage.get(k)).toBeNull();
      await s.storage.put(k, Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]), 'application/octet-stream');
      expect(await s.storage.exists(k)).toBe(true);
      expect((await buffer((await s.storage.get(k))!)).equals(bytes)).toBe(true);
      await s.storage.delete(k);
      expect(await s.storage.exists(k)).toBe(false);
      await s.storage.delete(k);
    });

    it('a stream that fails mid-way leaves no object and nothing beside it', async () => {
      const k = key();
      await expect(s.storage.put(k, failingStream(randomBytes(2 * 1024 * 1024)), 'application/octet-stream')).rejects.toThrow();
      expect(await s.storage.exists(k)).toBe(false);
      expect(await s.leftovers()).toEqual([]);
    });

    it('a signed URL downloads the bytes with the headers it was signed with', async () => {
      const k = key();
      await s.storage.put(k, Readable.from([Buffer.from('hello, file')]), 'text/plain');
      const url = await s.storage.signedGetUrl(k, { contentType: 'text/plain; charset=utf-8', disposition: 'attachment; filename="hello.txt"' }, { ttlSeconds: 60, now: Date.now() });
      const res = await s.fetchSigned(url);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('hello, file');
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="hello.txt"');
    });

    it('a signed URL past its expiry is refused with 403', async () => {
      const k = key();
      await s.storage.put(k, Readable.from([Buffer.from('old')]), 'text/plain');
      const url = await s.storage.signedGetUrl(k, { contentType: 'text/plain', disposition: 'attachment' }, { ttlSeconds: 60, now: Date.now() - 61_000 });
      const res = await s.fetchSigned(url);
      expect(res.status).toBe(403);
      expect(res.body.toString()).not.toContain('old');
    });
  });
}
