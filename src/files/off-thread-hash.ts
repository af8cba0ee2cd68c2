import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** Bytes handed to the worker at once (one copy into a buffer the worker then owns). */
const BATCH = 1 << 20;
/** Bytes the worker may be behind before the upload waits for it: memory stays bounded. */
const MAX_BEHIND = 8 * BATCH;
/** Workers kept for hashing; an upload that finds none free hashes on the main thread. */
const POOL = 2;

// Plain CommonJS, evaluated: the same code under tsx and in the built dist/.
const workerCode = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
let hash = null;
parentPort.on('message', (m) => {
  if (m.t === 'start') hash = createHash('sha256');
  else if (m.t === 'data') { hash.update(new Uint8Array(m.b, 0, m.n)); parentPort.postMessage({ t: 'ack', n: m.n, b: m.b }, [m.b]); }
  else if (m.t === 'end') { const d = hash.digest('hex'); hash = null; parentPort.postMessage({ t: 'digest', d }); }
});`;

type Message = { t: 'ack'; n: number; b: ArrayBuffer } | { t: 'digest'; d: string };

/**
 * Batch buffers the worker handed back, for the next batches: fresh memory for every MiB would
 * cost a page fault per 4 KiB, more than the copy itself.
 */
const spare: Buffer[] = [];
const takeBatch = () => spare.pop() ?? Buffer.allocUnsafeSlow(BATCH);
/** At most this many spares are kept (the memory of one upload's backlog and a bit). */
const SPARES = MAX_BEHIND / BATCH + 2;
const giveBack = (b: ArrayBuffer) => void (spare.length < SPARES && spare.push(Buffer.from(b)));

interface PooledWorker {
  worker: Worker;
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
  const p: PooledWorker = { worker: new Worker(workerCode, { eval: true }), onMessage: null, onError: null };
  p.worker.unref();
  p.worker.on('message', (m: Message) => p.onMessage?.(m));
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
 * and disk writes on the main thread. Bytes are copied in 1 MiB batches whose memory moves to the
 * worker (transferred, not copied again); `update` answers false while the worker is more than
 * 8 MiB behind, and `drained()` resolves when it has caught up. Uploads smaller than one batch, and
 * uploads that find every worker busy, are hashed on the main thread: same digest, no messages.
 */
export class OffThreadHash {
  private batch: Buffer;
  private used = 0;
  private pooled: PooledWorker | null = null;
  private inline: ReturnType<typeof createHash> | null = null;
  private behind = 0;
  private waiting: (() => void)[] = [];
  private failed: Error | null = null;
  private digestWaiter: { resolve(d: string): void; reject(e: Error): void } | null = null;
  private done = false;

  /** `on: 'main'` hashes on the calling thread from the first byte (no copies, no messages). */
  constructor(on: 'worker' | 'main' = 'worker') {
    if (on === 'main') {
      this.inline = createHash('sha256');
      this.batch = Buffer.alloc(0);
    } else {
      this.batch = takeBatch();
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

  drained(): Promise<void> {
    if (this.behind <= MAX_BEHIND || this.failed) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private start(): void {
    const p = acquire();
    if (!p) {
      this.inline = createHash('sha256');
      return;
    }
    this.pooled = p;
    p.onMessage = (m) => {
      if (m.t === 'ack') {
        this.behind -= m.n;
        giveBack(m.b);
        if (this.behind <= MAX_BEHIND) for (const go of this.waiting.splice(0)) go();
      } else {
        this.release();
        this.digestWaiter?.resolve(this.finish(m.d));
      }
    };
    p.onError = (err) => {
      this.failed = err;
      this.pooled = null;
      for (const go of this.waiting.splice(0)) go();
      this.digestWaiter?.reject(err);
    };
    p.worker.postMessage({ t: 'start' });
  }

  /** Hands the full part of the batch over (or hashes it here). */
  private flush(): void {
    if (this.used === 0) return;
    if (!this.pooled && !this.inline) this.start();
    if (this.inline) {
      this.inline.update(this.batch.subarray(0, this.used));
      this.used = 0;
      return;
    }
    const buffer = this.batch.buffer as ArrayBuffer;
    this.pooled!.worker.postMessage({ t: 'data', b: buffer, n: this.used }, [buffer]);
    this.behind += this.used;
    this.batch = takeBatch();
    this.used = 0;
  }

  /** The hex digest of every byte given. */
  async digest(): Promise<string> {
    if (this.failed) throw this.failed;
    this.done = true;
    if (!this.pooled && !this.inline) return this.finish(createHash('sha256').update(this.batch.subarray(0, this.used)).digest('hex'));
    this.flush();
    if (this.inline) return this.finish(this.inline.digest('hex'));
    return new Promise((resolve, reject) => {
      this.digestWaiter = { resolve, reject };
      this.pooled!.worker.postMessage({ t: 'end' });
    });
  }

  /** Gives the worker back (after the digest), or drops an unfinished hash (an upload that failed). */
  dispose(): void {
    if (this.pooled && !this.done) {
      // The worker still holds this hash: finish it into the void, then it is free again.
      this.done = true;
      this.digestWaiter = null;
      this.pooled.onMessage = (m) => m.t === 'digest' && this.release();
      this.pooled.worker.postMessage({ t: 'end' });
    }
    this.waiting.splice(0).forEach((go) => go());
  }

  /** The batch buffer back to the spares once the hash is done with it. */
  private finish(digest: string): string {
    if (this.batch.length === BATCH && spare.length < SPARES) spare.push(this.batch);
    this.batch = Buffer.alloc(0);
    return digest;
  }

  private release(): void {
    const p = this.pooled;
    if (!p) return;
    this.pooled = null;
    p.onMessage = null;
    p.onError = null;
    idle.push(p);
  }
}
