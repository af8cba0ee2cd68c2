import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
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
  /**
   * Removes the temporary files of puts that never finished (a crash or a kill mid-upload) whose
   * last write is older than `graceMs` before `nowMs`; answers how many. Run at start.
   */
  removeStaleParts(graceMs: number, nowMs: number): Promise<number>;
}

/** A part not written for this long belongs to no upload in flight (in any process on the folder). */
export const STALE_PART_MS = 3600_000;

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
   * into place and the rename flushed with its directory (and any directory made for it), so once
   * this resolves a crash cannot leave the event that names the object pointing at a `.part` file
   * (docs/files.md, "A crash and the rename"). On any failure the file is removed.
   */
  async function placed(k: string, fill: (part: string) => Promise<void>): Promise<void> {
    const target = pathOf(k);
    await mkdir(tmp, { recursive: true });
    const part = join(tmp, `${randomUUID()}.part`);
    try {
      await fill(part);
      const made = await mkdir(dirname(target), { recursive: true });
      await rename(part, target);
      await syncDirs(dirname(target), made);
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

    async removeStaleParts(graceMs, nowMs) {
      let names: string[];
      try {
        names = await readdir(tmp);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw err;
      }
      let removed = 0;
      for (const name of names.filter((n) => n.endsWith('.part'))) {
        const part = join(tmp, name);
        const at = await stat(part).then((st) => st.mtimeMs, () => nowMs);
        if (nowMs - at < graceMs) continue;
        await rm(part, { force: true });
        removed++;
      }
      return removed;
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

/**
 * Flushes the directory `dir` (so a rename into it survives a crash), and, when `mkdir` made
 * folders on the way (`made`: the first one it created), each of their parents up to the one that
 * was there, so the new folders' own names survive too.
 */
async function syncDirs(dir: string, made: string | undefined): Promise<void> {
  const dirs = [dir];
  if (made) for (let d = dir; d !== dirname(made); d = dirname(d)) dirs.push(dirname(d));
  for (const d of dirs) {
    const handle = await open(d, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
