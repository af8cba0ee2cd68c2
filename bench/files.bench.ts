/**
 * `npm run bench:files`: one large upload through the real server (its own process, local-disk
 * storage, PGlite unless DATABASE_URL is set). Writes a BENCH_FILE_MB (default 200) MB file of
 * random bytes, times `cp` of it (and `cp` + `sync`, since the server flushes a file to disk before
 * its event), then uploads it as multipart/form-data over loopback HTTP, sampling the server's RSS
 * every 20 ms. Prints MB/s and the server's peak RSS against its idle RSS. Not a test.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { productionEnv } from './server-env.js';

const MB = Number(process.env.BENCH_FILE_MB ?? 200);
const PORT = 3950 + (process.pid % 40);
const dir = mkdtempSync(join(tmpdir(), 'bench-files-'));
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

/** Streams the file as one multipart part; resolves with the response. */
function uploadFile(token: string): Promise<{ status: number; json: any }> {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(source).size + tail.length;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: PORT, method: 'POST', path: '/api/v2/files', headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(source, { highWaterMark: 1024 * 1024 });
    file.pipe(req, { end: false });
    file.on('end', () => req.end(tail));
  });
}

/** The same bytes over loopback HTTP to a server that only counts them (in this process): what HTTP alone reaches on the machine now. */
function timeHttpSink(): Promise<number> {
  return new Promise((resolve, reject) => {
    const sink = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end());
    });
    sink.listen(0, '127.0.0.1', () => {
      const start = process.hrtime.bigint();
      const { port } = sink.address() as { port: number };
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-length': String(statSync(source).size) } }, (res) => {
        res.resume();
        res.on('end', () => {
          sink.close();
          resolve(Number(process.hrtime.bigint() - start) / 1e9);
        });
      });
      req.on('error', reject);
      createReadStream(source, { highWaterMark: 1024 * 1024 }).pipe(req);
    });
  });
}

async function main() {
  writeSource();
  timeCp(false); // warm the page cache for both
  const cp = Math.min(timeCp(false), timeCp(false));
  const cpSync = timeCp(true);
  const httpOnly = await timeHttpSink();
  const dataDir = join(dir, 'data');
  const server = await startServer(dataDir);
  try {
    const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
    const reg = await call('POST', '/api/v2/auth/register', { email, password: 'correct horse battery staple', firstname: 'B', lastname: 'F' });
    const token = reg.json.data.token as string;
    const company = await call('POST', '/api/v2/companies', { name: 'Bench', subdomain: `bench-${randomBytes(3).toString('hex')}` }, token);
    await call('POST', `/api/v2/auth/companies/${company.json.data.uuid}/select`, undefined, token);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMiB(server.pid!);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid!))), 20);
    const start = process.hrtime.bigint();
    const res = await uploadFile(token);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    clearInterval(sampler);
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.json)}`);
    const rate = (s: number) => (MB / s).toFixed(1);
    const rows = [
      ['figure', 'value'],
      [`cp of ${MB} MB (page cache warm)`, `${cp.toFixed(2)} s, ${rate(cp)} MB/s`],
      [`cp + sync of ${MB} MB`, `${cpSync.toFixed(2)} s, ${rate(cpSync)} MB/s`],
      [`loopback HTTP of ${MB} MB to a server that only counts the bytes (bench process)`, `${httpOnly.toFixed(2)} s, ${rate(httpOnly)} MB/s`],
      [`upload of ${MB} MB (HTTP, multipart, SHA-256, fsync, event)`, `${seconds.toFixed(2)} s, ${rate(seconds)} MB/s`],
      ['upload / cp', `${((cp / seconds) * 100).toFixed(0)} % (target: at least 50 %)`],
      ['upload / HTTP alone', `${((httpOnly / seconds) * 100).toFixed(0)} %`],
      ['upload / (cp + sync)', `${((cpSync / seconds) * 100).toFixed(0)} %`],
      ['server RSS idle', `${idle.toFixed(1)} MiB`],
      ['server RSS peak during upload', `${peak.toFixed(1)} MiB (+${(peak - idle).toFixed(1)} MiB; target: within 50)`],
      ['database', process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'],
    ];
    for (const [a, b] of rows) process.stdout.write(`| ${a} | ${b} |\n`);
    if (res.json.data.size !== MB * 1024 * 1024) throw new Error(`stored ${res.json.data.size} bytes, sent ${MB * 1024 * 1024}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
