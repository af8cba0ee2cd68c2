import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { keyFile } from '../../key-file.js';
import { DurableWriteStream } from './durable-write.js';
import { assertKey, type ObjectStorage } from './storage.port.js';
import { signPath, verifyPath, type SignedQuery, type Verdict } from './url-signing.js';

export interface LocalStorage extends ObjectStorage {
  readonly kind: 'local';
  /** Checks a request to the signed-download route (see url-signing.ts). */
  verify(method: string, path: string, query: Partial<SignedQuery>, nowMs: number): Promise<Verdict>;
  putWritten: NonNullable<ObjectStorage['putWritten']>;
}

/**
 * The signing key: FILES_SIGNING_KEY when set, otherwise 32 random bytes written once (mode 0600)
 * into the data folder, so URLs stay valid across restarts and every process on the folder agrees.
 */
async function signingKey(root: string, configured: string | undefined): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  return keyFile(join(root, 'signing.key'));
}

/**
 * Local disk (the embedded default): objects under `<root>/objects/<key>`. A put writes a temporary
 * file in `<root>/tmp` (durable-write.ts: write-back started early, `fsync` before the stream finishes) and renames it into place, so an object is there whole
 * or not at all; `putWritten` does the same with a file the caller writes (the upload's hash worker, ADR 0017). Nothing is created until the first write or URL.
 */
export function createLocalStorage(o: { root: string; publicBaseUrl: string; signingKey?: string }): LocalStorage {
  const objects = join(o.root, 'objects');
  const tmp = join(o.root, 'tmp');
  let key: Promise<Buffer> | undefined;
  const secret = () => (key ??= signingKey(o.root, o.signingKey).catch((err) => { key = undefined; throw err; }));
  const pathOf = (k: string) => {
    assertKey(k);
    return join(objects, ...k.split('/'));
  };

  /**
   * A new object under `k`: `fill` writes (and flushes) a temporary file, which is then renamed
   * into place; on any failure the file is removed. The rename is not flushed with its directory
   * (docs/files.md, "Session 14": a directory fsync cost 13 % of a 200 MB upload's MB/s).
   */
  async function placed(k: string, fill: (part: string) => Promise<void>): Promise<void> {
    const target = pathOf(k);
    await mkdir(tmp, { recursive: true });
    const part = join(tmp, `${randomUUID()}.part`);
    try {
      await fill(part);
      await mkdir(dirname(target), { recursive: true });
      await rename(part, target);
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
  }

  return {
    kind: 'local',

    async put(k, body) {
      // Durable before the event that names it commits: a crash must not leave an event without bytes.
      await placed(k, (part) => pipeline(body, new DurableWriteStream(part)));
    },

    async putWritten(k, write) {
      await placed(k, async (part) => {
        const file = await open(part, 'wx', 0o600);
        try {
          await write(file.fd);
        } catch (err) {
          await file.close().catch(() => undefined);
          throw err;
        }
        await file.close();
      });
    },

    async get(k) {
      const path = pathOf(k);
      try {
        await stat(path);
      } catch {
        return null;
      }
      return createReadStream(path, { highWaterMark: 1 << 20 }) as Readable;
    },

    async exists(k) {
      try {
        return (await stat(pathOf(k))).isFile();
      } catch {
        return false;
      }
    },

    async delete(k) {
      await rm(pathOf(k), { force: true });
    },

    async signedGetUrl(k, headers, t) {
      assertKey(k);
      const expires = Math.floor(t.now / 1000) + t.ttlSeconds;
      return o.publicBaseUrl.replace(/\/+$/, '') + signPath(await secret(), k, headers, expires);
    },

    async verify(method, path, query, nowMs) {
      return verifyPath(await secret(), method, path, query, nowMs);
    },
  };
}
