import { Worker } from 'node:worker_threads';
import type { FromWorker, InvocationLimits, LogLine, RunOutcome, RunRequest, ToWorker } from './sandbox.protocol.js';

export type { InvocationLimits, LogLine, RunOutcome } from './sandbox.protocol.js';

/** What one invocation gives back: the outcome, what it logged, the CPU it used. */
export interface RunResult {
  outcome: RunOutcome;
  logs: LogLine[];
  cpuMs: number;
  wallMs: number;
}

/** The host API one invocation may call: `op` and its arguments as JSON; answers a JSON-able value or throws (the message goes to the function). */
export type HostCall = (op: string, args: unknown) => Promise<unknown>;

export interface Sandbox {
  run(job: { code: string; functionName: string; input: unknown; context: unknown; limits: InvocationLimits; host: HostCall }): Promise<RunResult>;
  /** The names of the functions a bundle exports (its top level run under `limits`). */
  exportsOf(code: string, limits: InvocationLimits): Promise<string[]>;
  close(): Promise<void>;
}

interface InFlight {
  resolve(r: RunResult): void;
  host: HostCall;
  started: number;
  wallMs: number;
  timer: NodeJS.Timeout;
  /** The worker did not answer a cancel: it is stuck, and replaced. */
  hardTimer?: NodeJS.Timeout;
}

interface PooledWorker {
  worker: Worker;
  inFlight: Map<number, InFlight>;
  retiring: boolean;
}

/**
 * How the worker starts: the built .js file, or (running from the TypeScript sources, under tsx or
 * vitest) the .ts file through tsx's loader, which a worker does not inherit.
 */
function spawn(heapBytes: number): Worker {
  const here = import.meta.url;
  const workerData = { heapBytes };
  if (here.endsWith('.js')) return new Worker(new URL('./sandbox.worker.js', here), { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const file = new URL('./sandbox.worker.ts', here).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => m.register()).then(() => import(${JSON.stringify(file)}))`, { eval: true, workerData });
}

const BOOT_MS = 60_000;

const lost = (message: string): RunOutcome => ({ ok: false, error: { code: 'SANDBOX_ERROR', message } });

/**
 * A pool of sandbox workers (docs/apps.md, "Functions"). An invocation goes to the worker with the
 * fewest in flight; its wall time is kept here: past it the worker is told to cancel, and a worker
 * that does not answer within a second more is terminated and replaced (its other invocations
 * fail with SANDBOX_ERROR).
 */
export function makeSandbox(opts: { workers: number; heapBytes: number }): Sandbox {
  const pool: PooledWorker[] = [];
  let nextId = 1;
  let closed = false;

  function add(): PooledWorker {
    const p: PooledWorker = { worker: spawn(opts.heapBytes), inFlight: new Map(), retiring: false };
    p.worker.unref();
    p.worker.on('message', (m: FromWorker) => onMessage(p, m));
    p.worker.on('error', () => replace(p, 'the sandbox worker failed'));
    p.worker.on('exit', () => replace(p, 'the sandbox worker stopped'));
    pool.push(p);
    return p;
  }

  function replace(p: PooledWorker, why: string, stuck?: number) {
    const at = pool.indexOf(p);
    if (at >= 0) pool.splice(at, 1);
    for (const [id, f] of p.inFlight) {
      const outcome: RunOutcome = id === stuck ? { ok: false, error: { code: 'WALL_TIME', message: 'the function ran past its wall time limit; its worker was stopped' } } : lost(why);
      settle(p, id, f, { outcome, logs: [], cpuMs: 0 });
    }
    void p.worker.terminate();
    if (!closed && pool.length < opts.workers) add();
  }

  function settle(p: PooledWorker, id: number, f: InFlight, r: Omit<RunResult, 'wallMs'>) {
    clearTimeout(f.timer);
    clearTimeout(f.hardTimer);
    p.inFlight.delete(id);
    f.resolve({ ...r, wallMs: Math.round(performance.now() - f.started) });
    if (p.retiring && p.inFlight.size === 0) replace(p, 'retired');
  }

  function onMessage(p: PooledWorker, m: FromWorker) {
    if (m.t === 'ready') return;
    const f = p.inFlight.get(m.id);
    if (!f) return;
    if (m.t === 'started') {
      clearTimeout(f.timer);
      f.started = performance.now();
      f.timer = setTimeout(() => {
        send(p, { t: 'cancel', id: m.id });
        f.hardTimer = setTimeout(() => replace(p, 'the sandbox worker was stopped: another function in it ran past its wall time', m.id), 1000);
      }, f.wallMs);
      return;
    }
    if (m.t === 'done') {
      if (m.retire) p.retiring = true;
      settle(p, m.id, f, { outcome: m.outcome, logs: m.logs, cpuMs: m.cpuMs });
      return;
    }
    f.host(m.op, JSON.parse(m.args)).then(
      (value) => send(p, { t: 'hostReply', id: m.id, callId: m.callId, ok: true, value: JSON.stringify(value === undefined ? null : value) }),
      (err: unknown) => send(p, { t: 'hostReply', id: m.id, callId: m.callId, ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  }

  const send = (p: PooledWorker, m: ToWorker) => {
    if (pool.includes(p)) p.worker.postMessage(m);
  };

  function dispatch(request: Omit<RunRequest, 'id'>, host: HostCall): Promise<RunResult> {
    if (closed) return Promise.resolve({ outcome: lost('the server is stopping'), logs: [], cpuMs: 0, wallMs: 0 });
    while (pool.length < opts.workers) add();
    const live = pool.filter((w) => !w.retiring);
    const p = (live.length ? live : pool).reduce((a, b) => (b.inFlight.size < a.inFlight.size ? b : a));
    const id = nextId++;
    return new Promise<RunResult>((resolve) => {
      const f: InFlight = {
        resolve,
        host,
        started: performance.now(),
        wallMs: request.limits.wallMs,
        // Until the worker says the invocation began: a worker that cannot start in this time is replaced.
        timer: setTimeout(() => replace(p, 'the sandbox worker did not start'), BOOT_MS),
      };
      p.inFlight.set(id, f);
      p.worker.postMessage({ t: 'run', request: { ...request, id } } satisfies ToWorker);
    });
  }

  return {
    run: (j) => dispatch({ code: j.code, functionName: j.functionName, input: JSON.stringify(j.input ?? null), context: JSON.stringify(j.context), limits: j.limits }, j.host),
    async exportsOf(code, limits) {
      const r = await dispatch({ code, functionName: '', input: 'null', context: '{}', limits, inspect: true }, async () => {
        throw new Error('no host calls while a bundle is checked');
      });
      if (!r.outcome.ok) throw Object.assign(new Error(r.outcome.error.message), { code: r.outcome.error.code });
      return JSON.parse(r.outcome.json) as string[];
    },
    async close() {
      closed = true;
      const all = pool.splice(0);
      for (const p of all) for (const [id, f] of p.inFlight) settle(p, id, f, { outcome: lost('the server is stopping'), logs: [], cpuMs: 0 });
      await Promise.all(all.map((p) => p.worker.terminate()));
    },
  };
}
