import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** How many leading bytes the type is sniffed from (file-type's own need is 4100). */
const HEAD = 4100;

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
 * Sits between the upload and the store: counts bytes against the limit, hashes them (SHA-256),
 * holds back the head until the type is sniffed and checked, then passes everything through.
 * Whatever it refuses fails the stream, so the store keeps nothing.
 */
export class UploadInspector extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  contentType: string | null = null;
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(private readonly o: { maxBytes: number; scopeOfLimit: 'file' | 'request'; accepted: readonly string[] }) {
    // Room for a few socket reads each way: at the default 16 KiB every chunk pauses the upload.
    super({ writableHighWaterMark: 1 << 20, readableHighWaterMark: 1 << 20 });
  }

  get sha256() {
    return this.hash.copy().digest('hex');
  }

  private async release(cb: TransformCallback) {
    try {
      const head = Buffer.concat(this.held);
      this.contentType = await sniffType(head.subarray(0, HEAD));
      // destroy(), not cb(err): an error handed to _flush's callback escapes as uncaught on Node 20.
      if (!typeAccepted(this.contentType, this.o.accepted)) return void this.destroy(new TypeRefusedError(this.contentType, this.o.accepted));
      this.held = [];
      cb(null, head);
    } catch (err) {
      this.destroy(err as Error);
    }
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
    this.size += chunk.length;
    if (this.size > this.o.maxBytes) return cb(new TooLargeError(this.o.scopeOfLimit, this.o.maxBytes));
    this.hash.update(chunk);
    if (this.contentType !== null) return cb(null, chunk);
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes >= HEAD) void this.release(cb);
    else cb();
  }

  override _flush(cb: TransformCallback) {
    if (this.contentType !== null) return cb();
    void this.release(cb);
  }
}
