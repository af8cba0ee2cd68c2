import { Transform, type TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import { OffThreadHash } from './off-thread-hash.js';
import { countUploadBytes } from './upload-scavenge.js';

/** How many leading bytes the type is sniffed from (file-type's own need is 4100). */
const HEAD = 4100;

/** Where uploads are hashed by default: on a worker, so the main thread only receives and hands on (ADR 0015; docs/files.md, Session 13). */
export const HASH_ON: 'worker' | 'main' = 'worker';

/** A file (or a request) past its size limit. `limit` is in bytes. */
export class TooLargeError extends Error {
  constructor(readonly scope: 'file' | 'request', readonly limit: number) {
    super(`the ${scope} is larger than ${limit} bytes`);
  }
}

/** A sniffed type the target property does not accept. */
export class TypeRefusedError extends Error {
  constructor(readonly contentType: string, readonly accepted: readonly string[]) {
    super(`files of type ${contentType} are not accepted`);
  }
}

function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  try {
    // The head may end inside a multi-byte character: leave its last bytes out.
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}

/**
 * The type of the bytes, never of the name or the client's header: file-type's magic numbers, and
 * for text (which has none) a look for markup, so an HTML page or an SVG is known as one.
 */
export async function sniffType(head: Buffer): Promise<string> {
  // Loaded on the first upload, not at start: a server that takes no files never pays for it.
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(head);
  if (found && found.mime !== 'application/xml') return found.mime;
  if (!found && !looksLikeText(head)) return 'application/octet-stream';
  const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (/<svg[\s>/]/.test(text)) return 'image/svg+xml';
  if (/<(!doctype html|html|head|body|script|iframe|object|embed|meta|a|div|img|form)[\s>/]/.test(text)) return 'text/html';
  if (found || text.startsWith('<?xml')) return 'application/xml';
  return 'text/plain';
}

/** Whether `type` is among `accepted` (exact types or `family/*`); an empty list accepts all. */
export const typeAccepted = (type: string, accepted: readonly string[]) =>
  accepted.length === 0 || accepted.some((a) => a === type || (a.endsWith('/*') && type.startsWith(a.slice(0, -1))));

/**
 * Sits between the upload and the store: counts bytes against the limit, hashes them (SHA-256, on
 * a worker thread: off-thread-hash.ts), holds back the head until the type is sniffed and checked,
 * then passes everything through. Whatever it refuses fails the stream, so the store keeps nothing.
 */
export class UploadInspector extends Transform {
  private readonly hash: OffThreadHash;
  size = 0;
  contentType: string | null = null;
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Whether the hash worker writes the bytes to a file (`writeInto`) instead of this stream passing them on. */
  private toFile = false;

  /** `canWriteFile`: take a hash worker now, so `writeInto` may be used (ADR 0017). */
  constructor(private readonly o: { maxBytes: number; scopeOfLimit: 'file' | 'request'; accepted: readonly string[]; hashOn?: 'worker' | 'main'; canWriteFile?: boolean }) {
    // Room for a few socket reads each way: at the default 16 KiB every chunk pauses the upload.
    super({ writableHighWaterMark: 4 << 20, readableHighWaterMark: 4 << 20 });
    this.hash = new OffThreadHash(o.canWriteFile && (o.hashOn ?? HASH_ON) === 'worker' ? 'worker-writes' : (o.hashOn ?? HASH_ON));
  }

  /** Whether a hash worker was free for `writeInto` (asked for with `canWriteFile`). */
  get writesFile(): boolean {
    return this.hash.canWrite;
  }

  /**
   * The hash worker writes every byte into the open, empty file `fd` (and `fsync`s it); this stream
   * passes nothing on. Resolves once the stream has ended and every byte is hashed, written and
   * on disk; rejects (the upload's limit, type, the client, a write error) only once the worker is
   * done with `fd`, so the caller may close and unlink the file. Before the first write.
   */
  async writeInto(fd: number): Promise<void> {
    this.toFile = true;
    this.hash.writeTo(fd);
    this.hash.onFailure = (err) => this.destroy(err);
    // Nothing is pushed: let the readable side end by itself.
    this.resume();
    try {
      await finished(this);
      await this.hash.digest();
    } catch (err) {
      this.hash.dispose();
      await this.hash.released();
      throw err;
    }
  }

  /** The SHA-256 (hex) of every byte that went through; once the stream has ended. */
  digest(): Promise<string> {
    return this.hash.digest();
  }

  private async release(cb: TransformCallback) {
    try {
      const head = Buffer.concat(this.held);
      this.contentType = await sniffType(head.subarray(0, HEAD));
      // destroy(), not cb(err): an error handed to _flush's callback escapes as uncaught on Node 20.
      if (!typeAccepted(this.contentType, this.o.accepted)) return void this.destroy(new TypeRefusedError(this.contentType, this.o.accepted));
      this.held = [];
      if (!this.toFile) return cb(null, head);
      // To the file only now, after the check: nothing of a refused upload is written.
      this.hashThen(head, cb);
    } catch (err) {
      this.destroy(err as Error);
    }
  }

  /** Hashes (and with a file, writes) `chunk`, then `cb`, once the worker is not too far behind. */
  private hashThen(chunk: Buffer, cb: TransformCallback) {
    if (this.hash.update(chunk)) cb();
    else void this.hash.drained().then(() => cb());
  }

  private pass(chunk: Buffer, cb: TransformCallback) {
    if (this.toFile && this.contentType !== null) return this.hashThen(chunk, cb);
    if (this.contentType !== null) return cb(null, chunk);
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes >= HEAD) void this.release(cb);
    else cb();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
    this.size += chunk.length;
    countUploadBytes(chunk.length);
    if (this.size > this.o.maxBytes) return cb(new TooLargeError(this.o.scopeOfLimit, this.o.maxBytes));
    // With a file the head is held unhashed: the worker writes what it hashes (after the type check).
    if (this.toFile) return this.pass(chunk, cb);
    // The hash worker more than a few MiB behind: wait for it, so memory stays bounded.
    if (this.hash.update(chunk)) this.pass(chunk, cb);
    else void this.hash.drained().then(() => this.pass(chunk, cb));
  }

  override _flush(cb: TransformCallback) {
    if (this.contentType !== null) return cb();
    void this.release(cb);
  }

  /** Drops the hash of an upload that will not be kept (frees its worker). */
  abandon(): void {
    this.hash.dispose();
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void) {
    // A stream that ended well is destroyed too (autoDestroy): its digest is still to be asked for.
    if (err || !this.writableFinished) this.hash.dispose();
    cb(err);
  }
}
