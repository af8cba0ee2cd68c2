// Over 300 lines on purpose: the worker's own code is the string below, kept beside the pool that
// talks to it (one protocol, read in one place; tsx and the built dist/ run the same text).
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { WRITE_BACK_EVERY } from './storage/durable-write.js';

/** Bytes handed to the worker at once. */
const BATCH = 1 << 20;
/** Batch slots in each worker's shared memory: one being filled, the rest queued or being hashed. */
const SLOTS = 8;
/** Bytes the worker may be behind before the upload waits for it: a slot stays free for the next batch. */
const MAX_BEHIND = (SLOTS - 2) * BATCH;
/** Workers kept for hashing; an upload that finds none free hashes on the main thread. */
const POOL = 2;

// Plain CommonJS, evaluated: the same code under tsx and in the built dist/. A batch comes as a
// slot of the shared memory (`i`), or, when no slot was free, as a buffer of its own (`b`). With a
// file (`start` names an fd, ADR 0017) each batch is also written at its place in the file here,
// write-back started every WRITE_BACK_EVERY bytes, and `end` waits for it and `fsync`s; a batch
// is acknowledged once hashed and written, and the first write error is sent back with the acks.
const workerCode = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const shared = new Uint8Array(workerData.memory);
const EVERY = workerData.writeBackEvery;
let hash = null, fd = -1, pos = 0, from = 0, syncing = false, err = null, afterSync = null;
const failure = (e) => ({ message: e.message, code: e.code });
function write(view) {
  if (fd < 0 || err) return;
  try {
    for (let at = 0; at < view.length; ) at += fs.writeSync(fd, view, at, view.length - at, pos + at);
    pos += view.length;
    if (!syncing && pos - from >= EVERY) {
      from = pos;
      syncing = true;
      fs.fdatasync(fd, (e) => { syncing = false; if (e) err = err || e; const go = afterSync; afterSync = null; if (go) go(); });
    }
  } catch (e) { err = e; }
}
function end(abort) {
  if (syncing) return void (afterSync = () => end(abort));
  if (fd >= 0 && !err && !abort) try { fs.fsyncSync(fd); } catch (e) { err = e; }
  const d = hash.digest('hex');
  parentPort.postMessage({ t: 'digest', d, e: err && failure(err) });
  hash = null; fd = -1; err = null;
}
parentPort.on('message', (m) => {
  if (m.t === 'start') { hash = createHash('sha256'); fd = m.fd ?? -1; pos = 0; from = 0; err = null; }
  else if (m.t === 'data') {
    const view = m.b ? new Uint8Array(m.b, 0, m.n) : shared.subarray(m.i * ${BATCH}, m.i * ${BATCH} + m.n);
    hash.update(view);
    write(view);
    parentPort.postMessage({ t: 'ack', n: m.n, i: m.i, e: err && failure(err) });
  }
  else if (m.t === 'end') end(m.abort);
});`;

type Failure = { message: string; code?: string } | null;
type Message = { t: 'ack'; n: number; i: number; e: Failure } | { t: 'digest'; d: string; e: Failure };

/** The worker's write error as an Error of this thread (its code kept: ENOSPC, EIO). */
const errorOf = (f: NonNullable<Failure>) => Object.assign(new Error(f.message), f.code ? { code: f.code } : {});

/**
 * The first batch of each upload is a buffer of its own (an upload smaller than a batch takes no
 * worker), kept for the next upload once done: fresh memory for every MiB would cost a page fault
 * per 4 KiB, more than the copy itself.
 */
const spare: Buffer[] = [];
const takeBatch = () => spare.pop() ?? Buffer.allocUnsafeSlow(BATCH);
const SPARES = 4;

interface PooledWorker {
  worker: Worker;
  /** Views of the shared memory, one per slot, and the slots no batch is in. */
  slots: Buffer[];
  free: number[];
  onMessage: ((m: Message) => void) | null;
  onError: ((err: Error) => void) | null;
}

const idle: PooledWorker[] = [];
let alive = 0;

function acquire(): PooledWorker | null {
  const free = idle.pop();
  if (free) return free;
  if (alive >= POOL) return null;
  alive++;
  // Shared, not transferred: a transferred buffer is a new ArrayBuffer each way, memory outside the
  // heap that V8 counts until a full GC finds the old one (ADR 0015).
  const memory = new SharedArrayBuffer(SLOTS * BATCH);
  const p: PooledWorker = {
    worker: new Worker(workerCode, { eval: true, workerData: { memory, writeBackEvery: WRITE_BACK_EVERY } }),
    slots: Array.from({ length: SLOTS }, (_, i) => Buffer.from(memory, i * BATCH, BATCH)),
    free: Array.from({ length: SLOTS }, (_, i) => i),
    onMessage: null,
    onError: null,
  };
  p.worker.unref();
  p.worker.on('message', (m: Message) => {
    // The slot is free again whoever sent it (a dropped upload's batches are acknowledged too).
    if (m.t === 'ack' && m.i >= 0) p.free.push(m.i);
    p.onMessage?.(m);
  });
  p.worker.on('error', (err) => {
    p.onError?.(err);
    alive--;
    const i = idle.indexOf(p);
    if (i >= 0) idle.splice(i, 1);
  });
  return p;
}

/**
 * SHA-256 of a stream's bytes, computed on a worker thread so hashing overlaps the upload's parsing
 * and disk writes on the main thread. Bytes are copied in 1 MiB batches into slots of memory shared
 * with the worker (no allocation, nothing transferred: a message names the slot); `update` answers
 * false while the worker is more than 6 MiB behind, and `drained()` resolves when it has caught up. Uploads smaller than one batch, and
 * uploads that find every worker busy, are hashed on the main thread: same digest, no messages.
 */
export class OffThreadHash {
  /** The batch being filled: a slot of the worker's shared memory, or `own`. */
  private batch: Buffer;
  private slot = -1;
  /** This upload's own batch buffer: its first batch, and any taken when no slot was free. */
  private own: Buffer | null = null;
  private used = 0;
  private pooled: PooledWorker | null = null;
  private inline: ReturnType<typeof createHash> | null = null;
  private behind = 0;
  private waiting: (() => void)[] = [];
  private failed: Error | null = null;
  private digestWaiter: { resolve(d: string): void; reject(e: Error): void } | null = null;
  private done = false;
  /** The digest once asked for (asked twice when the worker writes the file: ADR 0017). */
  private result: Promise<string> | null = null;
  /** With a file: whether the worker was told to start, and what waits for it to be done with the fd. */
  private started = false;
  private releaseWaiters: (() => void)[] = [];
  /** Called once when the worker reports a write error (the upload fails with it). */
  onFailure: ((err: Error) => void) | null = null;

  /** `on: 'main'` hashes on the calling thread from the first byte (no copies, no messages). */
  constructor(on: 'worker' | 'main' | 'worker-writes' = 'worker') {
    if (on === 'worker-writes') {
      // The worker is taken now, so the upload knows whether its bytes go to the file this way.
      this.pooled = acquire();
      this.batch = this.own = takeBatch();
    } else if (on === 'main') {
      this.inline = createHash('sha256');
      this.batch = Buffer.alloc(0);
    } else {
      this.batch = this.own = takeBatch();
    }
  }

  /** Hashes `chunk`; false: wait for `drained()` before the next. */
  update(chunk: Buffer): boolean {
    if (this.inline) {
      this.inline.update(chunk);
      return true;
    }
    let at = 0;
    while (at < chunk.length) {
      const n = chunk.copy(this.batch, this.used, at);
      this.used += n;
      at += n;
      if (this.used === BATCH) this.flush();
      if (this.inline) {
        (this.inline as ReturnType<typeof createHash>).update(chunk.subarray(at));
        return true;
      }
    }
    return this.behind <= MAX_BEHIND;
  }

  /** Whether the worker is this hash's and may write its bytes to a file (`'worker-writes'` found one free). */
  get canWrite(): boolean {
    return this.pooled !== null && !this.started;
  }

  /**
   * The worker writes every byte hashed from now on at its place in the open file `fd` (positional,
   * from 0), starts write-back every 16 MiB and `fsync`s before the digest comes back (ADR 0017).
   * Before the first `update`; only when `canWrite`.
   */
  writeTo(fd: number): void {
    this.start(fd);
  }

  drained(): Promise<void> {
    if (this.behind <= MAX_BEHIND || this.failed) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private start(fd = -1): void {
    const p = this.pooled ?? acquire();
    if (!p) {
      this.inline = createHash('sha256');
      return;
    }
    this.pooled = p;
    this.started = true;
    p.onMessage = (m) => {
      if (m.e && !this.failed) {
        this.failed = errorOf(m.e);
        this.onFailure?.(this.failed);
      }
      if (m.t === 'ack') {
        this.behind -= m.n;
        if (this.behind <= MAX_BEHIND || this.failed) for (const go of this.waiting.splice(0)) go();
      } else {
        this.release();
        if (m.e) this.digestWaiter?.reject(errorOf(m.e));
        else this.digestWaiter?.resolve(this.finish(m.d));
      }
    };
    p.onError = (err) => {
      this.failed = err;
      this.pooled = null;
      for (const go of this.waiting.splice(0)) go();
      this.digestWaiter?.reject(err);
      this.releaseWaiters.splice(0).forEach((go) => go());
    };
    p.worker.postMessage({ t: 'start', fd });
  }

  /** Hands the full part of the batch over (or hashes it here). */
  private flush(): void {
    if (this.used === 0) return;
    if (!this.started && !this.inline) this.start();
    if (this.inline) {
      this.inline.update(this.batch.subarray(0, this.used));
      this.used = 0;
      return;
    }
    const p = this.pooled!;
    if (this.slot >= 0) p.worker.postMessage({ t: 'data', i: this.slot, n: this.used });
    else {
      // The own buffer's bytes go into a free slot, or (none free: the caller did not wait) into a
      // buffer moved to the worker, so the own buffer can take the next batch.
      const i = p.free.pop();
      if (i !== undefined) {
        this.batch.copy(p.slots[i]!, 0, 0, this.used);
        p.worker.postMessage({ t: 'data', i, n: this.used });
      } else {
        const b = Buffer.from(this.batch.subarray(0, this.used)).buffer as ArrayBuffer;
        p.worker.postMessage({ t: 'data', b, n: this.used, i: -1 }, [b]);
      }
    }
    this.behind += this.used;
    this.used = 0;
    this.slot = p.free.pop() ?? -1;
    this.batch = this.slot >= 0 ? p.slots[this.slot]! : this.own!;
  }

  /** The hex digest of every byte given. */
  digest(): Promise<string> {
    return (this.result ??= this.computeDigest());
  }

  private async computeDigest(): Promise<string> {
    if (this.failed) throw this.failed;
    this.done = true;
    if (!this.started && !this.inline) {
      this.release();
      return this.finish(createHash('sha256').update(this.batch.subarray(0, this.used)).digest('hex'));
    }
    this.flush();
    if (this.inline) return this.finish(this.inline.digest('hex'));
    return new Promise((resolve, reject) => {
      this.digestWaiter = { resolve, reject };
      this.pooled!.worker.postMessage({ t: 'end' });
    });
  }

  /** Gives the worker back (after the digest), or drops an unfinished hash (an upload that failed). */
  dispose(): void {
    if (this.pooled && !this.started) this.release();
    else if (this.pooled && !this.done) {
      // The worker still holds this hash: finish it into the void (no fsync), then it is free again.
      this.done = true;
      this.digestWaiter = null;
      this.pooled.onMessage = (m) => m.t === 'digest' && this.release();
      this.pooled.worker.postMessage({ t: 'end', abort: true });
    }
    this.waiting.splice(0).forEach((go) => go());
  }

  /** Resolves once the worker is done with this hash (and with its file): after `dispose` or the digest. */
  released(): Promise<void> {
    if (!this.pooled) return Promise.resolve();
    return new Promise((resolve) => this.releaseWaiters.push(resolve));
  }

  /** The own buffer back to the spares once the hash is done with it. */
  private finish(digest: string): string {
    if (this.own && spare.length < SPARES) spare.push(this.own);
    this.own = null;
    this.batch = Buffer.alloc(0);
    return digest;
  }

  private release(): void {
    const p = this.pooled;
    if (!p) return;
    if (this.slot >= 0) p.free.push(this.slot);
    this.slot = -1;
    this.pooled = null;
    p.onMessage = null;
    p.onError = null;
    idle.push(p);
    this.releaseWaiters.splice(0).forEach((go) => go());
  }
}
