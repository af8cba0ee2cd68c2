/**
 * `npm run bench:sandbox`: how long a developer sandbox of a company of BENCH_RECORDS records
 * (default 100,000) takes to clone on PostgreSQL, beside how long `npm run rebuild` takes to replay
 * the same log, and the server's resident memory (idle, and the peak while it clones). Not a test.
 *
 * DATABASE_URL names the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
 * a database of its own is made and dropped (BENCH_KEEP=1 keeps it). Seeding goes through the
 * command path (bench/records.seed.ts, 100 records a command). BENCH_PAGE: the clone's page size.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { freePort } from './free-port.js';
import { productionEnv } from './server-env.js';

const N = Number(process.env.BENCH_RECORDS ?? 100_000);
const BASE = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NAME = `bench_sandbox_${process.pid}`;
const URL = databaseUrlFor(BASE, NAME);

function run(args: string[], env: Record<string, string>, capture = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

const rssMiB = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
};

function call(port: number, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function startServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATABASE_URL: URL, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', ...productionEnv },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    try {
      await call(port, 'GET', '/api/v2/openapi.json', '');
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error('server did not start');
}

const admin = createPostgresDb({ connectionString: adminUrl(BASE), max: 1 });
await admin.query(`drop database if exists ${NAME}`);
await admin.query(`create database ${NAME}`);
let server: ChildProcess | undefined;
try {
  process.stderr.write(`seeding ${N.toLocaleString('en-US')} records into ${NAME} ...\n`);
  const seeded = JSON.parse((await run(['bench/records.seed.ts'], { DATABASE_URL: URL, BENCH_N: String(N), BENCH_SMALL_TENANTS: '0', BENCH_SEED_BATCH: '100', BENCH_SEED_CONCURRENCY: '4' }, true)).trim().split('\n').pop()!) as { token: string; tenant: string; importRate: number };
  const db = createPostgresDb({ connectionString: URL, max: 1 });
  const [{ n: events }] = (await db.query<{ n: number }>('select count(*)::int4 as n from events')) as [{ n: number }];
  const [{ n: companyEvents }] = (await db.query<{ n: number }>('select count(*)::int4 as n from events where tenant = $1', [seeded.tenant])) as [{ n: number }];

  process.stderr.write('rebuilding ...\n');
  const rebuildStarted = Date.now();
  const rebuilt = await run(['src/rebuild.main.ts'], { DATABASE_URL: URL, LOG_LEVEL: 'silent' }, true);
  const rebuildMs = Date.now() - rebuildStarted;

  const port = await freePort();
  server = await startServer(port);
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssMiB(server.pid!);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server!.pid!))), 100);
  process.stderr.write('cloning ...\n');
  const started = Date.now();
  const asked = await call(port, 'POST', '/api/v2/developer-sandboxes', seeded.token, { name: 'bench' });
  if (asked.status !== 202) throw new Error(`POST developer-sandboxes answered ${asked.status}: ${JSON.stringify(asked.json)}`);
  const answeredMs = Date.now() - started;
  let last = asked.json.data;
  let worstPollMs = 0;
  while (last.status === 'cloning') {
    await new Promise((r) => setTimeout(r, 250));
    const t0 = Date.now();
    last = (await call(port, 'GET', `/api/v2/developer-sandboxes/${last.uuid}`, seeded.token)).json.data;
    worstPollMs = Math.max(worstPollMs, Date.now() - t0);
  }
  const cloneMs = Date.now() - started;
  clearInterval(sampler);
  if (last.status !== 'ready') throw new Error(`the clone ended ${last.status}: ${last.failure}`);
  const inSandbox = await call(port, 'POST', '/api/v2/deal/index', seeded.token, { limit: 1 });
  await db.close();

  const rows: [string, string][] = [
    ['records', N.toLocaleString('en-US')],
    ['events in the log (all tenants)', events.toLocaleString('en-US')],
    ["the company's events", companyEvents.toLocaleString('en-US')],
    ['events the clone copied', String(last.copiedEvents)],
    ['seed rate (records/s, 100 a command)', String(Math.round(seeded.importRate))],
    ['rebuild (npm run rebuild)', `${(rebuildMs / 1000).toFixed(1)} s (${rebuilt.trim()})`],
    ['clone (POST to ready)', `${(cloneMs / 1000).toFixed(1)} s (${(cloneMs / Math.max(rebuildMs, 1)).toFixed(2)}x the rebuild)`],
    ['POST answered in', `${answeredMs} ms`],
    ['slowest GET while cloning', `${worstPollMs} ms`],
    ['server RSS idle / peak while cloning', `${idle.toFixed(0)} MiB / ${peak.toFixed(0)} MiB (+${(peak - idle).toFixed(0)} MiB)`],
    ['records listed in the sandbox (total)', String(inSandbox.json?.total ?? inSandbox.status)],
  ];
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(40)} ${v}\n`);
} finally {
  server?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  if (!process.env.BENCH_KEEP) await admin.query(`drop database if exists ${NAME} with (force)`);
  await admin.close();
}
