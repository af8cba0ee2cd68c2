import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createLocalStorage } from '../../src/files/storage/local.storage.js';
import { startTestApp } from '../support/test-app.js';

// Issue 32, item 3: what a crash can leave of a local upload. The file system's own crash cannot be
// staged in a test, so the rename's durability is checked by what reaches the disk in which order:
// the file's fsync, the rename, then an fsync of the directory the rename wrote (and of a
// directory made for it); without that last step the rename may still be only in memory when the
// event that names the object commits.
const disk = vi.hoisted(() => ({ log: [] as string[] }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof fs.open = async (...args: Parameters<typeof fs.open>) => {
    const handle = await fs.open(...args);
    const path = String(args[0]);
    const sync = handle.sync.bind(handle);
    handle.sync = async () => {
      disk.log.push(`fsync ${path}`);
      return sync();
    };
    return handle;
  };
  const rename: typeof fs.rename = async (from, to) => {
    disk.log.push(`rename ${String(to)}`);
    return fs.rename(from, to);
  };
  return { ...fs, default: { ...fs, open, rename }, open, rename };
});

const dataDir = mkdtempSync(join(tmpdir(), 'files-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const root = join(dataDir, 'files');
const storage = createLocalStorage({ root, publicBaseUrl: 'http://127.0.0.1', signingKey: 'k'.repeat(40) });
const objects = join(root, 'objects');

describe('a local put survives a crash once it resolves', () => {
  it('the rename is flushed with its directory, and with the directories made for it', async () => {
    disk.log.length = 0;
    await storage.put('files/company-a/one', Readable.from([Buffer.from('first')]), 'text/plain');
    const target = join(objects, 'files', 'company-a', 'one');
    expect(disk.log).toEqual([`rename ${target}`, `fsync ${dirname(target)}`, `fsync ${join(objects, 'files')}`, `fsync ${objects}`, `fsync ${root}`]);

    // The folder is there now: only the directory the rename wrote.
    disk.log.length = 0;
    await storage.put('files/company-a/two', Readable.from([Buffer.from('second')]), 'text/plain');
    expect(disk.log).toEqual([`rename ${join(objects, 'files', 'company-a', 'two')}`, `fsync ${join(objects, 'files', 'company-a')}`]);
  });

  it('putWritten (the hash worker writes the file, ADR 0017) flushes its rename the same way', async () => {
    disk.log.length = 0;
    await storage.putWritten('files/company-a/three', async (fd) => {
      const { writeSync, fsyncSync } = await import('node:fs');
      writeSync(fd, Buffer.from('third'));
      fsyncSync(fd);
    });
    expect(disk.log).toEqual([`rename ${join(objects, 'files', 'company-a', 'three')}`, `fsync ${join(objects, 'files', 'company-a')}`]);
    const body = await storage.get('files/company-a/three');
    expect(Buffer.concat(await body!.toArray()).toString()).toBe('third');
  });
});

describe('a start removes what uploads cut short left', () => {
  it('a .part not written for over an hour is removed; a recent one (an upload in flight) is kept', async () => {
    const tmp = join(root, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const stale = join(tmp, '6f1c1f3e-0000-4000-8000-000000000001.part');
    const recent = join(tmp, '6f1c1f3e-0000-4000-8000-000000000002.part');
    writeFileSync(stale, 'cut short by a crash');
    writeFileSync(recent, 'still arriving');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);
    utimesSync(recent, new Date(Date.now() - 10 * 60_000), new Date(Date.now() - 10 * 60_000));

    const t = await startTestApp({ DATA_DIR: dataDir, FILES_SIGNING_KEY: 'k'.repeat(40), REACTORS_ENABLED: 'false' });
    try {
      expect(readdirSync(tmp)).toEqual(['6f1c1f3e-0000-4000-8000-000000000002.part']);
      // The objects stored before are untouched.
      expect(await storage.exists('files/company-a/one')).toBe(true);
    } finally {
      await t.close();
    }
  });
});
