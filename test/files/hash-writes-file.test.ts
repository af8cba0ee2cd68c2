import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, closeSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { TooLargeError, TypeRefusedError, UploadInspector } from '../../src/files/inspect-upload.js';
import { createLocalStorage } from '../../src/files/storage/local.storage.js';

const MiB = 1 << 20;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const root = mkdtempSync(join(tmpdir(), 'files-slots-'));
const storage = createLocalStorage({ root, publicBaseUrl: 'http://127.0.0.1', signingKey: 'k'.repeat(40) });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const chunks = (data: Buffer, size: number) => Readable.from(Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size)));
const leftovers = () => readdirSync(join(root, 'tmp'));

/** An upload through the inspector whose hash worker writes the file (ADR 0017), as files.service does it. */
async function upload(key: string, src: Readable, o: { maxBytes?: number; accepted?: string[] } = {}) {
  const inspector = new UploadInspector({ maxBytes: o.maxBytes ?? 100 * MiB, scopeOfLimit: 'file', accepted: o.accepted ?? [], canWriteFile: true });
  inspector.on('error', () => undefined);
  expect(inspector.writesFile).toBe(true);
  try {
    await storage.putWritten(key, (fd) => {
      const written = inspector.writeInto(fd);
      src.pipe(inspector);
      return written;
    });
  } finally {
    inspector.abandon();
  }
  return { sha256: await inspector.digest(), type: inspector.contentType };
}

describe('the hash worker writes the upload (local disk, ADR 0017)', () => {
  it('stores every byte and its SHA-256: empty, under the type head, one batch exactly, past the write-back interval', async () => {
    for (const [i, length] of [0, 100, MiB, 37 * MiB + 12345].entries()) {
      const data = randomBytes(length);
      const got = await upload(`files/t/slots-${i}`, chunks(data, 64 * 1024 + 7));
      expect(got.sha256).toBe(sha(data));
      expect(readFileSync(join(root, 'objects', 'files', 't', `slots-${i}`)).equals(data)).toBe(true);
    }
    expect(leftovers()).toEqual([]);
  });

  it('a refused type and a size past the limit leave no object and no temporary file', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(3 * MiB)]);
    await expect(upload('files/t/refused', chunks(png, 64 * 1024), { accepted: ['text/plain'] })).rejects.toBeInstanceOf(TypeRefusedError);
    await expect(upload('files/t/large', chunks(randomBytes(5 * MiB), 64 * 1024), { maxBytes: 2 * MiB })).rejects.toBeInstanceOf(TooLargeError);
    expect(await storage.exists('files/t/refused')).toBe(false);
    expect(await storage.exists('files/t/large')).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it('a stream that fails mid-way leaves nothing behind', async () => {
    const src = new Readable({ read() {} });
    src.push(randomBytes(3 * MiB));
    setTimeout(() => src.destroy(new Error('client gone')), 50);
    const inspector = new UploadInspector({ maxBytes: 100 * MiB, scopeOfLimit: 'file', accepted: [], canWriteFile: true });
    inspector.on('error', () => undefined);
    src.on('error', (err) => inspector.destroy(err));
    await expect(storage.putWritten('files/t/gone', (fd) => {
      const written = inspector.writeInto(fd);
      src.pipe(inspector);
      return written;
    })).rejects.toThrow('client gone');
    expect(await storage.exists('files/t/gone')).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it("the worker's write error fails the upload with its code, and the worker serves the next upload", async () => {
    // A descriptor open for reading only: every write fails (EBADF), as ENOSPC or EIO would.
    const path = join(root, 'read-only');
    writeFileSync(path, '');
    const fd = openSync(path, 'r');
    const inspector = new UploadInspector({ maxBytes: 100 * MiB, scopeOfLimit: 'file', accepted: [], canWriteFile: true });
    inspector.on('error', () => undefined);
    const written = inspector.writeInto(fd);
    chunks(randomBytes(4 * MiB), 64 * 1024).pipe(inspector);
    await expect(written).rejects.toMatchObject({ code: 'EBADF' });
    closeSync(fd);
    const data = randomBytes(2 * MiB + 1);
    expect((await upload('files/t/after', chunks(data, 64 * 1024))).sha256).toBe(sha(data));
  });
});
