/**
 * `npm run bench:files`: one large upload through the real server (its own process, local-disk
 * storage, PGlite unless DATABASE_URL is set). Writes a BENCH_FILE_MB (default 200) MB file of
 * random bytes, times `cp` of it (and `cp` + `sync`, since the server flushes a file to disk before
 * its event) and a bare loopback HTTP transfer of it (to a server in another process that only
 * counts the bytes), then uploads it twice, as a raw body (application/octet-stream) and as
 * multipart/form-data, sampling the server's RSS every 20 ms. Prints MB/s, each upload's ratio to
 * `cp`, `cp` + `sync` and bare HTTP, and the server's peak RSS against its idle RSS. Not a test.
 * Where the time goes, stage by stage: `npm run bench:files-stages`.
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { productionEnv } from './server-env.js';

const MB = Number(process.env.BENCH_FILE_MB ?? 200);
const PORT = 3950 + (process.pid % 40);
const dir = process.argv[2] === 'sink' ? '' : mkdtempSync(join(tmpdir(), 'bench-files-'));
const source = join(dir, 'source.bin');

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

function writeSource() {
  const fd = openSync(source, 'w');
  const chunk = randomBytes(1024 * 1024);
  for (let i = 0; i < MB; i++) {
    chunk[0] = i & 255;
    writeSync(fd, chunk);
  }
  closeSync(fd);
}

function timeCp(withSync: boolean): number {
  const target = join(dir, `copy-${withSync}.bin`);
  const start = process.hrtime.bigint();
  spawnSync('cp', [source, target], { stdio: 'inherit' });
  if (withSync) spawnSync('sync', [target], { stdio: 'inherit' });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  rmSync(target);
  return seconds;
}

function call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, method, path, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function startServer(dataDir: string): Promise<ChildProcess> {
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'error', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', ...productionEnv, PASSWORD_SCRYPT_LOG_N: '12', FILES_MAX_FILE_BYTES: String((MB + 10) * 1024 * 1024), FILES_MAX_REQUEST_BYTES: String((MB + 10) * 1024 * 1024) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    try {
      await call('GET', '/api/v2/openapi.json');
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error('server did not start');
}

/** Sends `head`, the file (read in 1 MiB chunks) and `tail` as one request body; resolves with the response. */
function send(o: { port: number; path: string; headers: Record<string, string>; head?: Buffer; tail?: Buffer }): Promise<{ status: number; json: any }> {
  const head = o.head ?? Buffer.alloc(0);
  const tail = o.tail ?? Buffer.alloc(0);
  const length = head.length + statSync(source).size + tail.length;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: o.port, method: 'POST', path: o.path, headers: { ...o.headers, 'content-length': String(length) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    async function* body() {
      if (head.length) yield head;
      yield* createReadStream(source, { highWaterMark: 1024 * 1024 });
      if (tail.length) yield tail;
    }
    pipeline(body, req).catch(reject);
  });
}

/** The file as one multipart part. */
function uploadMultipart(token: string) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return send({ port: PORT, path: '/api/v2/files', headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, head, tail });
}

/** The file as the body itself (application/octet-stream, the name in ?name=). */
const uploadRaw = (token: string) => send({ port: PORT, path: '/api/v2/files?name=big.bin', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' } });

/** The sink, when this file runs as the child: a bare HTTP server that counts the bytes and answers. */
function runSink() {
  const sink = http.createServer((req, res) => {
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => res.end(JSON.stringify({ n })));
  });
  sink.listen(0, '127.0.0.1', () => process.send!((sink.address() as { port: number }).port));
}

/**
 * The bare HTTP ceiling: the same bytes, the same client, to a server in another process that only
 * counts them (client and server in one process would share one thread, which no upload does).
 */
async function timeHttpSink(): Promise<number> {
  const child = fork(fileURLToPath(import.meta.url), ['sink'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const port = await new Promise<number>((resolve) => child.once('message', (p) => resolve(p as number)));
    const start = process.hrtime.bigint();
    const res = await send({ port, path: '/', headers: {} });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (res.json.n !== statSync(source).size) throw new Error(`the sink got ${res.json.n} bytes`);
    return seconds;
  } finally {
    child.kill();
  }
}

async function main() {
  writeSource();
  timeCp(false); // warm the page cache for both
  const cp = Math.min(timeCp(false), timeCp(false));
  const cpSync = timeCp(true);
  const dataDir = join(dir, 'data');
  const server = await startServer(dataDir);
  try {
    const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
    const reg = await call('POST', '/api/v2/auth/register', { email, password: 'correct horse battery staple', firstname: 'B', lastname: 'F' });
    const token = reg.json.data.token as string;
    const company = await call('POST', '/api/v2/companies', { name: 'Bench', subdomain: `bench-${randomBytes(3).toString('hex')}` }, token);
    await call('POST', `/api/v2/auth/companies/${company.json.data.uuid}/select`, undefined, token);
    // Next to the uploads, so the load on the machine is alike for both.
    const httpOnly = await timeHttpSink();
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMiB(server.pid!);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid!))), 20);
    const timedUpload = async (how: string, up: (token: string) => Promise<{ status: number; json: any }>) => {
      const start = process.hrtime.bigint();
      const res = await up(token);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (res.status !== 201) throw new Error(`${how} upload answered ${res.status}: ${JSON.stringify(res.json)}`);
      if (res.json.data.size !== MB * 1024 * 1024) throw new Error(`stored ${res.json.data.size} bytes, sent ${MB * 1024 * 1024}`);
      return seconds;
    };
    const raw = await timedUpload('raw', uploadRaw);
    const multipart = await timedUpload('multipart', uploadMultipart);
    clearInterval(sampler);
    const rate = (s: number) => `${s.toFixed(2)} s, ${(MB / s).toFixed(1)} MB/s`;
    const pct = (reference: number, s: number) => `${((reference / s) * 100).toFixed(0)} %`;
    const rows = [
      ['figure', 'value'],
      [`cp of ${MB} MB (page cache warm)`, rate(cp)],
      [`cp + sync of ${MB} MB`, rate(cpSync)],
      [`bare loopback HTTP of ${MB} MB (to a server in another process that only counts the bytes)`, rate(httpOnly)],
      [`upload, raw body (HTTP, SHA-256, type sniff, write, fsync, event)`, rate(raw)],
      [`upload, multipart (the same and multipart parsing)`, rate(multipart)],
      ['raw upload / (cp + sync)', `${pct(cpSync, raw)} (target: at least 50 %; multipart ${pct(cpSync, multipart)})`],
      ['raw upload / cp', `${pct(cp, raw)} (multipart ${pct(cp, multipart)})`],
      ['raw upload / bare HTTP', `${pct(httpOnly, raw)} (multipart ${pct(httpOnly, multipart)})`],
      ['server RSS idle', `${idle.toFixed(1)} MiB`],
      ['server RSS peak during the uploads', `${peak.toFixed(1)} MiB (+${(peak - idle).toFixed(1)} MiB; target: within 50)`],
      ['database', process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'],
    ];
    for (const [a, b] of rows) process.stdout.write(`| ${a} | ${b} |\n`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'sink') runSink();
else
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
