/**
 * `npm run bench:files`: one large upload through the real server (its own process, local-disk
 * storage, PGlite unless DATABASE_URL is set). Writes a BENCH_FILE_MB (default 200) MB file of
 * random bytes, then runs BENCH_RUNS (default 5) rounds, each one of every figure back to back
 * (interleaved, so a change in the machine's load touches all alike): `cp` of the file, `cp` +
 * `sync` (the server flushes a file to disk before its event), a bare loopback HTTP transfer (to a
 * server in another process that only counts the bytes), an upload as a raw body
 * (application/octet-stream) and one as multipart/form-data. The client is `curl` streaming the
 * file from disk (`-T`, `-F`), what a user sending a large file would use; without curl on PATH,
 * or with BENCH_CLIENT=node, a Node client writing 1 MiB chunks. Prints each figure's median (and
 * every run), the uploads' ratios to the references as the median of each round's own ratio, the
 * server's peak RSS during the uploads against its idle RSS, and the load average. Each round's
 * uploads are deleted and purged at its end (as cp's copy is removed), so the disk does not fill
 * and later rounds are not slower for it. Not a test.
 * Where the time goes, stage by stage: `npm run bench:files-stages`.
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, openSync, writeSync, closeSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { mainThreadCpuMs, processCpuMs } from './proc-cpu.js';
import { productionEnv } from './server-env.js';

const MB = Number(process.env.BENCH_FILE_MB ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PORT = 3950 + (process.pid % 40);
const dir = process.argv[2] === 'sink' ? '' : mkdtempSync(join(tmpdir(), 'bench-files-'));
const source = join(dir, 'source.bin');
const CURL = process.env.BENCH_CLIENT !== 'node' && spawnSync('curl', ['--version']).status === 0;

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

/** Bytes of the regular files under `root` (0 when it is not there). */
function storedBytes(root: string): number {
  let n = 0;
  if (!existsSync(root)) return 0;
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) if (e.isFile()) n += statSync(join(e.parentPath ?? e.path, e.name)).size;
  return n;
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
  // BENCH_SERVER_FLAGS: more flags for the server's node (say `--trace-gc`).
  profile.push(...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? []));
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

type Sent = { status: number; json: any; seconds: number };

/** Node client: `head`, the file (read in 1 MiB chunks) and `tail` as one request body. */
function sendNode(o: { port: number; path: string; headers: Record<string, string>; head?: Buffer; tail?: Buffer }): Promise<Sent> {
  const head = o.head ?? Buffer.alloc(0);
  const tail = o.tail ?? Buffer.alloc(0);
  const length = head.length + statSync(source).size + tail.length;
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: o.port, method: 'POST', path: o.path, headers: { ...o.headers, 'content-length': String(length) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null, seconds: Number(process.hrtime.bigint() - start) / 1e9 }));
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

/** curl streaming the file from disk: `-T` (the file as the body) or `-F` (one multipart part); the time is curl's own total. */
function sendCurl(o: { port: number; path: string; headers: Record<string, string>; multipart?: boolean }): Promise<Sent> {
  const headers = Object.entries(o.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const body = o.multipart ? ['-F', `file=@${source};filename=big.bin;type=application/octet-stream`] : ['-T', source, '-H', 'content-type: application/octet-stream'];
  // `Expect:` off: no wait for a 100 Continue; the response and then the timing on the last line.
  const args = ['-sS', '-X', 'POST', '-H', 'Expect:', ...headers, ...body, '-w', '\n%{http_code} %{time_total}', `http://127.0.0.1:${o.port}${o.path}`];
  return new Promise((resolve, reject) => {
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`curl exited with ${code}`));
      const at = out.lastIndexOf('\n');
      const [status, seconds] = out.slice(at + 1).split(' ').map(Number);
      const text = out.slice(0, at);
      resolve({ status: status!, json: text ? JSON.parse(text) : null, seconds: seconds! });
    });
  });
}

/** The file as one multipart part. */
function uploadMultipart(token: string): Promise<Sent> {
  const headers = { authorization: `Bearer ${token}` };
  if (CURL) return sendCurl({ port: PORT, path: '/api/v2/files', headers, multipart: true });
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return sendNode({ port: PORT, path: '/api/v2/files', headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` }, head, tail });
}

/** The file as the body itself (application/octet-stream, the name in ?name=). */
function uploadRaw(token: string): Promise<Sent> {
  const o = { port: PORT, path: '/api/v2/files?name=big.bin', headers: { authorization: `Bearer ${token}` } };
  return CURL ? sendCurl(o) : sendNode({ ...o, headers: { ...o.headers, 'content-type': 'application/octet-stream' } });
}

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
async function timeHttpSink(port: number, pid: number, cpu: number[]): Promise<number> {
  const o = { port, path: '/', headers: {} };
  const before = processCpuMs(pid)!;
  const res = await (CURL ? sendCurl(o) : sendNode(o));
  cpu.push(processCpuMs(pid)! - before);
  if (res.json.n !== statSync(source).size) throw new Error(`the sink got ${res.json.n} bytes`);
  return res.seconds;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main() {
  writeSource();
  timeCp(false); // warm the page cache
  const load = [loadavg()[0]!];
  const dataDir = join(dir, 'data');
  const server = await startServer(dataDir);
  const sink = fork(fileURLToPath(import.meta.url), ['sink'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const sinkPort = await new Promise<number>((resolve) => sink.once('message', (p) => resolve(p as number)));
    const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
    const reg = await call('POST', '/api/v2/auth/register', { email, password: 'correct horse battery staple', firstname: 'B', lastname: 'F' });
    const token = reg.json.data.token as string;
    const company = await call('POST', '/api/v2/companies', { name: 'Bench', subdomain: `bench-${randomBytes(3).toString('hex')}` }, token);
    await call('POST', `/api/v2/auth/companies/${company.json.data.uuid}/select`, undefined, token);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMiB(server.pid!);
    let peak = idle;
    const timedUpload = async (how: string, up: (token: string) => Promise<Sent>, cpu: number[], mainCpu: number[]) => {
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid!))), 20);
      try {
        const before = processCpuMs(server.pid)!;
        const mainBefore = mainThreadCpuMs(server.pid)!;
        const res = await up(token);
        cpu.push(processCpuMs(server.pid)! - before);
        mainCpu.push(mainThreadCpuMs(server.pid)! - mainBefore);
        if (res.status !== 201) throw new Error(`${how} upload answered ${res.status}: ${JSON.stringify(res.json)}`);
        if (res.json.data.size !== MB * 1024 * 1024) throw new Error(`stored ${res.json.data.size} bytes, sent ${MB * 1024 * 1024}`);
        uploaded.push(res.json.data.uuid as string);
        return res.seconds;
      } finally {
        clearInterval(sampler);
      }
    };
    /** The uploads of the current round: deleted and purged at its end, as cp's copy is removed. */
    const uploaded: string[] = [];
    const purgeRound = async () => {
      for (const uuid of uploaded.splice(0)) {
        const del = await call('DELETE', `/api/v2/files/${uuid}`, undefined, token);
        const purge = await call('DELETE', `/api/v2/files/${uuid}/permanent`, undefined, token);
        if (del.status >= 300 || purge.status >= 300) throw new Error(`purging ${uuid}: ${del.status} / ${purge.status}`);
      }
      const left = storedBytes(join(dataDir, 'files', 'objects'));
      if (left !== 0) throw new Error(`${left} bytes of uploads are still on disk after the purge`);
    };
    const runs: Record<'cp' | 'cpSync' | 'http' | 'raw' | 'multipart', number[]> = { cp: [], cpSync: [], http: [], raw: [], multipart: [] };
    /** CPU time (ms, all threads, from /proc) of the receiving process per transfer: the sink's, the server's. */
    const cpu: Record<'http' | 'raw' | 'multipart', number[]> = { http: [], raw: [], multipart: [] };
    /** The server main thread's share of it (receive, parse, hand on; hashing and writes run on other threads). */
    const mainCpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.cp.push(timeCp(false));
      runs.cpSync.push(timeCp(true));
      runs.http.push(await timeHttpSink(sinkPort, sink.pid!, cpu.http));
      runs.raw.push(await timedUpload('raw', uploadRaw, cpu.raw, mainCpu));
      runs.multipart.push(await timedUpload('multipart', uploadMultipart, cpu.multipart, []));
      // So the disk does not fill round by round and a later round is not slower for it.
      await purgeRound();
    }
    load.push(loadavg()[0]!);
    const mbs = (s: number) => MB / s;
    const rate = (xs: number[]) => `${mbs(median(xs)).toFixed(1)} MB/s (runs: ${xs.map((s) => mbs(s).toFixed(0)).join(', ')})`;
    /** The median over the rounds of reference time / upload time (each round's own pair). */
    const ratio = (reference: number[], upload: number[]) => `${(median(upload.map((s, i) => reference[i]! / s)) * 100).toFixed(0)} %`;
    const rows = [
      ['figure', `median of ${RUNS} interleaved rounds`],
      ['client', CURL ? 'curl, streaming the file from disk (-T raw, -F multipart)' : 'Node http.request, the file in 1 MiB chunks'],
      [`cp of ${MB} MB (page cache warm)`, rate(runs.cp)],
      [`cp + sync of ${MB} MB`, rate(runs.cpSync)],
      [`bare loopback HTTP of ${MB} MB (same client, to a server in another process that only counts the bytes)`, rate(runs.http)],
      ['upload, raw body (HTTP, SHA-256, type sniff, write, fsync, event)', rate(runs.raw)],
      ['upload, multipart (the same and multipart parsing)', rate(runs.multipart)],
      ['raw upload / (cp + sync)', `${ratio(runs.cpSync, runs.raw)} (target: at least 50 %; multipart ${ratio(runs.cpSync, runs.multipart)})`],
      ['raw upload / cp', `${ratio(runs.cp, runs.raw)} (multipart ${ratio(runs.cp, runs.multipart)})`],
      ['raw upload / bare HTTP', `${ratio(runs.http, runs.raw)} (multipart ${ratio(runs.http, runs.multipart)})`],
      [`receiver's CPU per ${MB} MB (ms, all threads): bare HTTP sink / raw upload / multipart`, `${median(cpu.http)} / ${median(cpu.raw)} / ${median(cpu.multipart)} (a loaded machine disturbs these less than MB/s)`],
      [`server main thread's CPU per raw upload of ${MB} MB (ms)`, `${median(mainCpu)} (runs: ${mainCpu.join(', ')}; the rest of the raw figure ran on other threads)`],
      ['server RSS idle', `${idle.toFixed(1)} MiB`],
      ['server RSS peak during the uploads', `${peak.toFixed(1)} MiB (+${(peak - idle).toFixed(1)} MiB; target: within 50)`],
      ['database', process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'],
      ['load average (1 min) before / after', load.map((l) => l.toFixed(1)).join(' / ')],
    ];
    for (const [a, b] of rows) process.stdout.write(`| ${a} | ${b} |\n`);
  } finally {
    sink.kill();
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
