import { fdatasync, fsync, writev, WriteStream } from 'node:fs';

/**
 * Write-back is started (`fdatasync`, off the critical path) every time this much more is written.
 * 16 MiB, not 64: the final `fsync` waits for the last write-back still in flight, 7-17 ms at
 * 64 MiB against 2-5 ms at 16 on a 200 MB upload (ADR 0010, amended in session 14).
 */
export const WRITE_BACK_EVERY = 16 << 20;

/** Bytes gathered into one positional `writev` (2 MiB cost more CPU under load, docs/files.md Session 14). */
const GATHER = 1 << 20;

/** fs.WriteStream as Node has it (its constructor and `fd` are not in the type declarations). */
const FileWriteStream = WriteStream as unknown as new (path: string, o: { flags: string; mode: number; highWaterMark: number }) => WriteStream & { fd: number | null };

/**
 * A write stream into a new file (`wx`, mode 0600) that finishes only once every byte is on disk:
 * its `_final` waits for a last `fsync`. Every WRITE_BACK_EVERY bytes written it starts an
 * `fdatasync` without waiting for it, so the kernel writes the file back while the upload goes on
 * and the final `fsync` finds little left (a 200 MB file otherwise waits for all of it at the end;
 * a file smaller than WRITE_BACK_EVERY pays nothing more). Writes are positional `writev`s of at
 * least GATHER bytes, one at a time; a chunk is taken as soon as it is gathered. fs.WriteStream's
 * own writes were half that size on average (whatever came during the previous write), and each
 * write is a round trip through libuv's pool and the event loop that costs more than the kernel's
 * copy (docs/files.md, Session 14).
 */
export class DurableWriteStream extends FileWriteStream {
  /** How many write-backs were started (for the tests). */
  writeBacks = 0;
  private readonly writeBackEvery: number;
  private writeBackFrom = 0;
  private syncing = false;
  private waitingForSync: (() => void) | null = null;
  private syncFailure: Error | null = null;
  private gathered: Buffer[] = [];
  private gatheredBytes = 0;
  private position = 0;
  private inFlight = 0;
  private waitingForWrite: (() => void) | null = null;

  constructor(path: string, o: { writeBackEvery?: number } = {}) {
    super(path, { flags: 'wx', mode: 0o600, highWaterMark: 1 << 20 });
    this.writeBackEvery = o.writeBackEvery ?? WRITE_BACK_EVERY;
  }

  private startWriteBack() {
    if (this.syncing || this.bytesWritten - this.writeBackFrom < this.writeBackEvery) return;
    this.writeBackFrom = this.bytesWritten;
    this.syncing = true;
    this.writeBacks++;
    fdatasync(this.fd as number, (err) => {
      this.syncing = false;
      if (err) this.syncFailure ??= err;
      this.waitingForSync?.();
    });
  }

  /** Writes what is gathered at its place in the file (the rest again after a short write). */
  private issue(buffers = this.gathered, at = this.position) {
    if (buffers === this.gathered) {
      this.position += this.gatheredBytes;
      this.gathered = [];
      this.gatheredBytes = 0;
    }
    this.inFlight++;
    writev(this.fd as number, buffers, at, (err, n) => {
      this.inFlight--;
      if (err) this.syncFailure ??= err;
      else {
        this.bytesWritten += n;
        const rest = unwritten(buffers, n);
        if (rest.length > 0) return this.issue(rest, at + n);
        if (!this.syncFailure) this.startWriteBack();
      }
      const go = this.waitingForWrite;
      this.waitingForWrite = null;
      go?.();
    });
  }

  /** Calls `cb` once no write is in flight (at once when none is), or at once with a failure. */
  private whenRoom(cb: (error?: Error | null) => void) {
    if (this.syncFailure || this.inFlight === 0) return cb(this.syncFailure);
    this.waitingForWrite = () => this.whenRoom(cb);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (error?: Error | null) => void) {
    this.gathered.push(chunk);
    this.gatheredBytes += chunk.length;
    if (this.gatheredBytes >= GATHER) this.issue();
    this.whenRoom(cb);
  }

  override _writev(chunks: { chunk: Buffer; encoding: BufferEncoding }[], cb: (error?: Error | null) => void) {
    for (const { chunk } of chunks) {
      this.gathered.push(chunk);
      this.gatheredBytes += chunk.length;
    }
    if (this.gatheredBytes >= GATHER) this.issue();
    this.whenRoom(cb);
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void) {
    // Not while a write or an fdatasync may still be queued on the fd: closed, its number could be someone else's.
    const close = () => {
      if (this.inFlight > 0) return void (this.waitingForWrite = close);
      if (this.syncing) return void (this.waitingForSync = close);
      super._destroy(err, cb);
    };
    close();
  }

  override _final(cb: (error?: Error | null) => void) {
    const last = () => {
      this.waitingForSync = null;
      if (this.syncFailure) return cb(this.syncFailure);
      fsync(this.fd as number, (err) => cb(err));
    };
    if (this.gatheredBytes > 0 && !this.syncFailure) this.issue();
    // The last write done, then the write-back in flight, then the last fsync.
    this.whenRoom((err) => {
      if (err) return cb(err);
      if (this.syncing) this.waitingForSync = last;
      else last();
    });
  }
}

/** What of `buffers` is left after `n` bytes of them were written (a short `writev`: the rest is written again). */
export function unwritten(buffers: Buffer[], n: number): Buffer[] {
  const rest: Buffer[] = [];
  for (const b of buffers) {
    if (n >= b.length) n -= b.length;
    else {
      rest.push(n > 0 ? b.subarray(n) : b);
      n = 0;
    }
  }
  return rest;
}
