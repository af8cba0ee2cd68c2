/** The messages between the main thread (sandbox.pool.ts) and a sandbox worker (sandbox.worker.ts). */

export interface InvocationLimits {
  cpuMs: number;
  wallMs: number;
  memoryBytes: number;
  outputBytes: number;
  logLines: number;
  logBytes: number;
}

export interface RunRequest {
  id: number;
  /** The deploy's CommonJS bundle. */
  code: string;
  functionName: string;
  /** JSON texts. */
  input: string;
  context: string;
  limits: InvocationLimits;
  /** Only load the bundle and answer the names of the functions it exports (a deploy's check). */
  inspect?: boolean;
}

export type ToWorker =
  | { t: 'run'; request: RunRequest }
  | { t: 'hostReply'; id: number; callId: number; ok: true; value: string }
  | { t: 'hostReply'; id: number; callId: number; ok: false; value?: undefined; error: string }
  | { t: 'cancel'; id: number };

export interface LogLine {
  level: string;
  message: string;
  at: number;
}

export type RunOutcome = { ok: true; json: string } | { ok: false; error: { code: string; message: string } };

export type FromWorker =
  | { t: 'ready' }
  /** The invocation began (the worker's WebAssembly module loaded): its wall time counts from here. */
  | { t: 'started'; id: number }
  | { t: 'host'; id: number; callId: number; op: string; args: string }
  | { t: 'done'; id: number; outcome: RunOutcome; logs: LogLine[]; cpuMs: number; retire: boolean };

/**
 * Evaluated in every fresh VM before the bundle: takes the raw host functions off the global
 * object and builds what a function sees (its second argument, `ctx`, and `console`). Every host
 * call is one JSON text each way.
 */
export const PRELUDE = `(() => {
  const host = globalThis.__host, log = globalThis.__log, done = globalThis.__done, fail = globalThis.__fail, now = globalThis.__now;
  for (const k of ['__host', '__log', '__done', '__fail', '__now']) delete globalThis[k];
  Date.now = () => now();
  const call = async (op, args) => JSON.parse(await host(op, JSON.stringify(args === undefined ? null : args)));
  const text = (x) => { if (typeof x === 'string') return x; try { return JSON.stringify(x); } catch (e) { return String(x); } };
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) logger[level] = (...a) => log(level, a.map(text).join(' '));
  globalThis.console = { log: logger.info, info: logger.info, debug: logger.debug, warn: logger.warn, error: logger.error };
  globalThis.__module = { exports: {} };
  const makeCtx = (info) => Object.freeze({
    app: info.app, company: info.company, job: info.job, invocationId: info.invocationId, settings: info.settings,
    log: logger,
    records: Object.freeze({
      get: (uuid) => call('records.get', { uuid }),
      query: (objectName, request) => call('records.query', { objectName, request: request === undefined ? {} : request }),
      create: (objectName, properties, options) => call('records.create', { objectName, properties, uuid: options && options.uuid }),
      update: (uuid, properties) => call('records.update', { uuid, properties }),
    }),
    state: Object.freeze({ get: (key) => call('state.get', { key }), set: (values) => call('state.set', { values }) }),
    secrets: Object.freeze({ get: (name) => call('secrets.get', { name }) }),
    fetch: (url, init) => call('http.request', { url, method: init && init.method, headers: init && init.headers, body: init && init.body }),
  });
  globalThis.__run = (name, input, info) => {
    const fn = globalThis.__module.exports[name];
    Promise.resolve()
      .then(() => {
        if (typeof fn !== 'function') throw new Error('the bundle exports no function ' + name);
        return fn(JSON.parse(input), makeCtx(JSON.parse(info)));
      })
      .then((v) => done(JSON.stringify(v === undefined ? null : v)))
      .catch((e) => fail(e));
  };
})();`;
