import { fdatasync, fsync, WriteStream } from 'node:fs';

/**
 * Write-back is started (`fdatasync`, off the critical path) every time this much more is written.
 * 16 MiB, not 64: the final `fsync` waits for the last write-back still in flight, 12-17 ms at
 * 64 MiB against 2-4 ms at 16 on a 200 MB upload (ADR 0010, amended in session 14).
 */
export const WRITE_BACK_EVERY = 16 << 20;

/** fs.WriteStream as Node has it (its constructor and `fd` are not in the type declarations). */
const FileWriteStream = WriteStream as unknown as new (path: string, o: { flags: string; mode: number; highWaterMark: number }) => WriteStream & { fd: number | null };

/**
 * A write stream into a new file (`wx`, mode 0600) that finishes only once every byte is on disk:
 * its `_final` waits for a last `fsync`. Every WRITE_BACK_EVERY bytes written it starts an
 * `fdatasync` without waiting for it, so the kernel writes the file back while the upload goes on
 * and the final `fsync` finds little left (a 200 MB file otherwise waits for all of it at the end;
 * a file smaller than WRITE_BACK_EVERY pays nothing more). Writes are fs.WriteStream's own: one
 * `writev` of whatever gathered while the previous write was in flight.
 */
export class DurableWriteStream extends FileWriteStream {
  /** How many write-backs were started (for the tests). */
  writeBacks = 0;
  private readonly writeBackEvery: number;
  private writeBackFrom = 0;
  private syncing = false;
  private waitingForSync: (() => void) | null = null;
  private syncFailure: Error | null = null;

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

  private after(cb: (error?: Error | null) => void) {
    return (err?: Error | null) => {
      if (!err && !this.syncFailure) this.startWriteBack();
      cb(err ?? this.syncFailure);
    };
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, cb: (error?: Error | null) => void) {
    super._write(chunk, encoding, this.after(cb));
  }

  override _writev(chunks: { chunk: Buffer; encoding: BufferEncoding }[], cb: (error?: Error | null) => void) {
    super._writev!(chunks, this.after(cb));
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void) {
    // Not while an fdatasync may still be queued on the fd: closed, its number could be someone else's.
    if (this.syncing) this.waitingForSync = () => super._destroy(err, cb);
    else super._destroy(err, cb);
  }

  override _final(cb: (error?: Error | null) => void) {
    const last = () => {
      this.waitingForSync = null;
      if (this.syncFailure) return cb(this.syncFailure);
      fsync(this.fd as number, (err) => cb(err));
    };
    if (this.syncing) this.waitingForSync = last;
    else last();
  }
}
