/**
 * The sandbox's worker thread: runs app functions in QuickJS compiled to WebAssembly
 * (quickjs-emscripten), one fresh runtime per invocation, with its memory limit, a CPU budget
 * checked by the interpreter's interrupt handler, and no way out but the host calls the prelude
 * makes (posted to the main thread, which checks them). Runs off the main thread so a function
 * that spins never holds the server's event loop. Protocol: sandbox.protocol.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSContext, type QuickJSDeferredPromise, type QuickJSHandle, type QuickJSRuntime } from 'quickjs-emscripten-core';
import releaseSync from '@jitl/quickjs-wasmfile-release-sync';
import type { QuickJSSyncVariant } from 'quickjs-emscripten-core';
import { PRELUDE, type FromWorker, type RunRequest, type ToWorker } from './sandbox.protocol.js';

const port = parentPort!;
// The WebAssembly heap of this worker has a ceiling: QuickJS's own per-runtime limit does not count
// what its allocator gives large strings in this build, so the ceiling is what stops a memory bomb
// (an "out of memory" in the function), and a worker that hit it is retired (a heap never shrinks).
const PAGE = 65536;
const heapBytes = (workerData as { heapBytes: number }).heapBytes;
const modulePromise = newQuickJSWASMModuleFromVariant(newVariant(releaseSync as unknown as QuickJSSyncVariant, { wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: Math.ceil(heapBytes / PAGE) }) })).then((mod) => {
  // A first run compiles the interpreter's WebAssembly code (lazily, by V8): done here, it is not
  // counted against the first function's CPU time.
  const rt = mod.newRuntime();
  const vm = rt.newContext();
  vm.evalCode(`${PRELUDE}; JSON.stringify([1, 'a', { b: [2] }].map((x) => x))`).dispose();
  vm.dispose();
  rt.dispose();
  return mod;
});

interface Invocation {
  request: RunRequest;
  rt: QuickJSRuntime;
  vm: QuickJSContext;
  cpuUsed: number;
  sliceStart: number | null;
  stop: 'CPU_LIMIT' | 'WALL_TIME' | null;
  pending: Map<number, QuickJSDeferredPromise>;
  logs: { level: string; message: string; at: number }[];
  logBytes: number;
  logsDropped: number;
  settled: boolean;
  /** What __done / __fail said, applied once the VM has returned (never disposed from inside it). */
  result: Outcome | null;
}

type Outcome = { ok: true; json: string } | { ok: false; error: { code: string; message: string } };

const running = new Map<number, Invocation>();
let nextCall = 1;
const post = (m: FromWorker) => port.postMessage(m);

/** Runs `fn` inside the VM, counting its time against the invocation's CPU budget. */
function inVm<T>(inv: Invocation, fn: () => T): T {
  inv.sliceStart = performance.now();
  try {
    return fn();
  } finally {
    inv.cpuUsed += performance.now() - inv.sliceStart;
    inv.sliceStart = null;
  }
}

function pump(inv: Invocation) {
  if (inv.settled) return;
  const r = inVm(inv, () => inv.rt.executePendingJobs());
  if (r.error) {
    const e = inv.vm.dump(r.error);
    r.error.dispose();
    finish(inv, { ok: false, error: guestError(inv, e) });
    return;
  }
  if (inv.result) return finish(inv, inv.result);
  // Nothing left to run and nothing awaited from the host: the function's promise can never settle.
  if (!inv.settled && inv.pending.size === 0 && !inv.rt.hasPendingJob()) {
    finish(inv, { ok: false, error: inv.stop ? guestError(inv, null) : { code: 'NEVER_SETTLED', message: 'the function returned a promise that never settles' } });
  }
}

function guestError(inv: Invocation, e: unknown): { code: string; message: string } {
  if (inv.stop === 'CPU_LIMIT') return { code: 'CPU_LIMIT', message: `the function ran past its CPU time limit (${inv.request.limits.cpuMs} ms)` };
  if (inv.stop === 'WALL_TIME') return { code: 'WALL_TIME', message: `the function ran past its wall time limit (${inv.request.limits.wallMs} ms)` };
  const text = typeof e === 'object' && e !== null ? `${(e as { name?: string }).name ?? 'Error'}: ${(e as { message?: string }).message ?? ''}` : String(e);
  if (/out of memory/i.test(text) || e === null) return { code: 'MEMORY_LIMIT', message: `the function ran out of memory (${Math.round(inv.request.limits.memoryBytes / 1048576)} MiB)` };
  if (/stack overflow/i.test(text)) return { code: 'MEMORY_LIMIT', message: 'the function overflowed its stack' };
  return { code: 'FUNCTION_ERROR', message: text.slice(0, 2000) };
}

function finish(inv: Invocation, outcome: Outcome) {
  if (inv.settled) return;
  inv.settled = true;
  running.delete(inv.request.id);
  let disposed = true;
  try {
    for (const d of inv.pending.values()) d.dispose();
    inv.pending.clear();
    inv.vm.dispose();
    inv.rt.dispose();
  } catch {
    // A runtime that cannot be freed (a handle left behind): this worker is retired after its calls end.
    disposed = false;
  }
  const logs = inv.logsDropped ? [...inv.logs, { level: 'warn', message: `${inv.logsDropped} more log lines dropped (limit)`, at: Date.now() }] : inv.logs;
  const outOfMemory = !outcome.ok && outcome.error.code === 'MEMORY_LIMIT';
  post({ t: 'done', id: inv.request.id, outcome, logs, cpuMs: Math.round(inv.cpuUsed), retire: !disposed || outOfMemory });
}

function addLog(inv: Invocation, level: string, message: string) {
  const { logLines, logBytes } = inv.request.limits;
  const text = message.slice(0, 4000);
  if (inv.logs.length >= logLines || inv.logBytes + text.length > logBytes) {
    inv.logsDropped++;
    return;
  }
  inv.logBytes += text.length;
  inv.logs.push({ level, message: text, at: Date.now() });
}

function define(inv: Invocation) {
  const { vm } = inv;
  const host = vm.newFunction('__host', (opH, argsH) => {
    const op = vm.getString(opH);
    const args = vm.getString(argsH);
    const callId = nextCall++;
    const deferred = vm.newPromise();
    inv.pending.set(callId, deferred);
    post({ t: 'host', id: inv.request.id, callId, op, args });
    return deferred.handle;
  });
  const log = vm.newFunction('__log', (levelH, messageH) => {
    addLog(inv, vm.getString(levelH), vm.getString(messageH));
  });
  const done = vm.newFunction('__done', (jsonH) => {
    const json = vm.getString(jsonH);
    if (inv.result) return;
    if (Buffer.byteLength(json) > inv.request.limits.outputBytes) {
      inv.result = { ok: false, error: { code: 'OUTPUT_LIMIT', message: `the function's result passed ${inv.request.limits.outputBytes} bytes` } };
    } else inv.result = { ok: true, json };
  });
  const fail = vm.newFunction('__fail', (errH) => {
    inv.result ??= { ok: false, error: guestError(inv, vm.dump(errH)) };
  });
  // The build's own clock is slow to call (about 0.2 ms) and drifts: Date.now reads the worker's.
  const now = vm.newFunction('__now', () => vm.newNumber(Math.floor(performance.timeOrigin + performance.now())));
  for (const [name, h] of [['__host', host], ['__log', log], ['__done', done], ['__fail', fail], ['__now', now]] as const) {
    vm.setProp(vm.global, name, h);
    h.dispose();
  }
}

/** Evaluates `code` in the VM; an exception finishes the invocation (false). */
function evaluate(inv: Invocation, code: string, file: string): boolean {
  const r = inVm(inv, () => inv.vm.evalCode(code, file));
  if (r.error) {
    const e = inv.vm.dump(r.error);
    r.error.dispose();
    finish(inv, { ok: false, error: guestError(inv, e) });
    return false;
  }
  r.value.dispose();
  return true;
}

async function run(request: RunRequest) {
  const mod = await modulePromise;
  post({ t: 'started', id: request.id });
  const rt = mod.newRuntime();
  rt.setMemoryLimit(request.limits.memoryBytes);
  rt.setMaxStackSize(512 * 1024);
  const vm = rt.newContext();
  const inv: Invocation = { request, rt, vm, cpuUsed: 0, sliceStart: null, stop: null, pending: new Map(), logs: [], logBytes: 0, logsDropped: 0, settled: false, result: null };
  running.set(request.id, inv);
  rt.setInterruptHandler(() => {
    if (inv.stop) return true;
    if (inv.sliceStart !== null && inv.cpuUsed + (performance.now() - inv.sliceStart) > request.limits.cpuMs) inv.stop = 'CPU_LIMIT';
    return inv.stop !== null;
  });
  define(inv);
  if (!evaluate(inv, PRELUDE, 'prelude.js')) return;
  if (!evaluate(inv, `(function (module, exports) {\n${request.code}\n})(globalThis.__module, globalThis.__module.exports);`, 'bundle.js')) return;
  if (request.inspect) {
    const names = inVm(inv, () => vm.evalCode('JSON.stringify(Object.keys(globalThis.__module.exports).filter((k) => typeof globalThis.__module.exports[k] === "function"))'));
    if (names.error) {
      finish(inv, { ok: false, error: guestError(inv, vm.dump(names.error)) });
      names.error.dispose();
      return;
    }
    const json = vm.getString(names.value);
    names.value.dispose();
    finish(inv, { ok: true, json });
    return;
  }
  const call = `globalThis.__run(${JSON.stringify(request.functionName)}, ${JSON.stringify(request.input)}, ${JSON.stringify(request.context)})`;
  if (!evaluate(inv, call, 'invoke.js')) return;
  pump(inv);
}

function hostReply(m: Extract<ToWorker, { t: 'hostReply' }>) {
  const inv = running.get(m.id);
  const deferred = inv?.pending.get(m.callId);
  if (!inv || !deferred) return;
  inv.pending.delete(m.callId);
  const { vm } = inv;
  if (m.ok) {
    const h = vm.newString(m.value);
    deferred.resolve(h);
    h.dispose();
  } else {
    const h: QuickJSHandle = vm.newError({ name: 'HostError', message: m.error });
    deferred.reject(h);
    h.dispose();
  }
  deferred.dispose();
  pump(inv);
}

port.on('message', (m: ToWorker) => {
  if (m.t === 'run') {
    run(m.request).catch((err: unknown) => {
      const inv = running.get(m.request.id);
      if (inv) finish(inv, { ok: false, error: { code: 'SANDBOX_ERROR', message: String((err as Error)?.message ?? err).slice(0, 500) } });
      else post({ t: 'done', id: m.request.id, outcome: { ok: false, error: { code: 'SANDBOX_ERROR', message: String((err as Error)?.message ?? err).slice(0, 500) } }, logs: [], cpuMs: 0, retire: true });
    });
  } else if (m.t === 'hostReply') hostReply(m);
  else if (m.t === 'cancel') {
    const inv = running.get(m.id);
    if (inv) {
      inv.stop = 'WALL_TIME';
      finish(inv, { ok: false, error: guestError(inv, null) });
    }
  }
});
post({ t: 'ready' });
