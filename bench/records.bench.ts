/**
 * (Over 300 lines: one benchmark's whole scenario, seed to figures, read top to bottom.)
 *
 * `npm run bench:records`: the records data plane under load. For PGlite, and for PostgreSQL when
 * DATABASE_URL is set: seeds one object with BENCH_RECORDS records (default 1,000,000; PGlite
 * BENCH_PGLITE_RECORDS, default 100,000) plus 10 small tenants through the command path, starts
 * the server as its own process, then measures at concurrency 16 (BENCH_CONCURRENCY) for
 * BENCH_SECONDS each, after BENCH_WARMUP seconds (default 2) of the same requests that are not
 * counted: create, get by uuid, update, index (contains + equals + date sort, the first page and the 200th)
 * and a free-text query. Prints a table; not a test.
 *
 * BENCH_ONLY=pglite|postgres runs one; BENCH_DATABASE names the PostgreSQL database, BENCH_KEEP=1
 * keeps it, BENCH_REUSE=1 measures a kept one again without seeding; BENCH_EXTRA=1 adds a rarer
 * contains, unfiltered sorted pages and an equality on a unique-ish text (cost against candidates).
 * BENCH_OPS=get,index picks figures (create, get, update, index, text, mixed, extra; mixed: half the
 * clients update records while a quarter ask the filtered first page and a quarter free text); BENCH_PROFILE=dir
 * writes a CPU profile of the server there (node --cpu-prof); BENCH_NODE_ARGS passes flags to the
 * server's node (`--trace-gc`, say). Index and free text are measured
 * again on a server without the result cache (INDEX_CACHE_ENTRIES=0).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { benchRecord, syllableWord } from './records.data.js';
import { productionEnv } from './server-env.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
// Each figure's requests run this long before its SECONDS are counted: a figure is the steady
// state, not the first requests after the previous figure's writes (a match set read again, a
// vacuum they started). What a cold request costs is the "no result cache" figures.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PG_N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const PGLITE_N = Number(process.env.BENCH_PGLITE_RECORDS ?? Math.min(PG_N, 100_000));
const ONLY = process.env.BENCH_ONLY; // 'pglite' | 'postgres'
const PORT = 3900 + (process.pid % 50);
const OPS = new Set((process.env.BENCH_OPS ?? `create,get,update,index,text,mixed${process.env.BENCH_EXTRA ? ',extra' : ''}`).split(','));
const PROFILE = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

interface Seeded {
  token: string;
  tenant: string;
  sample: string[];
  importRate: number;
}

function run(cmd: string, args: string[], env: Record<string, string>, capture = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`))));
  });
}

// The server being measured: each figure notes the highest RSS it saw during its run.
let serverPid = 0;

async function startServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...PROFILE, ...NODE_ARGS, '--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, ...env, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'error', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', ...productionEnv },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  serverPid = child.pid!;
  for (let i = 0; i < 600; i++) {
    try {
      await request({ method: 'GET', path: '/api/v2/openapi.json' }, '');
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error('server did not start');
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

interface Req {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
}

function request(req: Req, token: string, body?: (text: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    const r = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        method: req.method,
        path: req.path,
        agent,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        let text = '';
        if (body) res.on('data', (d) => (text += d));
        else res.resume();
        res.on('end', () => {
          body?.(text);
          resolve(res.statusCode ?? 0);
        });
      },
    );
    r.on('error', reject);
    if (payload) r.write(payload);
    r.end();
  });
}

interface Figure {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** The server's highest resident memory sampled during the figure (MiB). */
  rss: number;
}

interface Load {
  label: string;
  clients: number;
  next: (i: number) => Req;
}

/** Runs the loads side by side for SECONDS (their clients together): a figure per load. */
async function measureTogether(token: string, loads: readonly Load[]): Promise<Figure[]> {
  const counted = Date.now() + WARMUP * 1000;
  const until = counted + SECONDS * 1000;
  let rss = 0;
  const sampler = setInterval(() => (rss = Math.max(rss, memory(serverPid).now)), 50);
  const runs = await Promise.all(
    loads.map(async (load) => {
      const latencies: number[] = [];
      let errors = 0;
      let i = 0;
      await Promise.all(
        Array.from({ length: load.clients }, async () => {
          while (Date.now() < until) {
            const warm = Date.now() < counted;
            const t0 = process.hrtime.bigint();
            const status = await request(load.next(i++), token);
            if (status >= 300) errors++;
            if (!warm) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          }
        }),
      );
      return { latencies, errors };
    }),
  );
  clearInterval(sampler);
  const seconds = (Date.now() - counted) / 1000;
  return loads.map((load, k) => {
    const { latencies, errors } = runs[k]!;
    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    return { label: load.label, rps: latencies.length / seconds, p50: q(0.5), p99: q(0.99), errors, rss };
  });
}

async function measure(label: string, token: string, next: (i: number) => Req): Promise<Figure> {
  const [figure] = await measureTogether(token, [{ label, clients: CONCURRENCY, next }]);
  return figure!;
}

function memory(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(key)) ?? '')?.[1] ?? 0);
  return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
}

/** BENCH_REUSE=1 on PostgreSQL: measure an already seeded database again (a new session for its biggest tenant). */
async function reuse(url: string): Promise<Seeded> {
  const { openSession } = await import('../src/auth/sessions.js');
  const db = createPostgresDb({ connectionString: url, max: 1 });
  const [t] = await db.query<{ tenant: string; user_uuid: string }>(
    `select c.tenant, m.user_uuid from record_counts c join memberships m on m.tenant::text = c.tenant and m.role = 'ADMIN'
      group by c.tenant, m.user_uuid order by sum(c.live) desc limit 1`,
  );
  const session = await openSession(db, { userUuid: t!.user_uuid, selectedCompany: t!.tenant, now: Date.now(), ttlMs: 24 * 3600 * 1000 });
  const sample = (await db.query<{ uuid: string }>(`select uuid from records tablesample system (5) where tenant = $1 and is_primary limit 20000`, [t!.tenant])).map((r) => r.uuid);
  await db.close();
  return { token: session.token, tenant: t!.tenant, sample, importRate: 0 };
}

/**
 * Half the clients update records (their status: in or out of the filter) while a quarter ask
 * the filtered first page and a quarter free text: every answer follows changes of the object.
 */
function mixed(pick: (i: number) => string, filtered: object, suffix: string): Load[] {
  const quarter = Math.max(1, Math.floor(CONCURRENCY / 4));
  return [
    { label: `index first page while updates run${suffix}`, clients: quarter, next: () => ({ method: 'POST', path: '/api/v2/deal/index', body: { ...filtered, page: 0 } }) },
    { label: `free text while updates run${suffix}`, clients: quarter, next: (i) => ({ method: 'POST', path: '/api/v2/deal/index', body: { query: syllableWord(11 + (i % 5)), limit: 25 } }) },
    { label: `  the updates alongside${suffix}`, clients: Math.max(1, CONCURRENCY - 2 * quarter), next: (i) => ({ method: 'PUT', path: `/api/v2/deal/${pick(i * 31)}`, body: { properties: { status: i % 3 === 0 ? 'won' : 'active' } } }) },
  ];
}

async function bench(label: string, n: number, env: Record<string, string>) {
  let seeded: Seeded;
  if (process.env.BENCH_REUSE && env.DATABASE_URL) {
    process.stdout.write(`\n${label}: measuring the seeded database again (${n.toLocaleString('en-US')} records)\n`);
    seeded = await reuse(env.DATABASE_URL);
  } else {
    process.stdout.write(`\n${label}: seeding ${n.toLocaleString('en-US')} records + 10 small tenants through the command path...\n`);
    seeded = JSON.parse(await run(process.execPath, ['--import', 'tsx', 'bench/records.seed.ts'], { ...env, BENCH_N: String(n) }, true));
    process.stdout.write(`  import: ${Math.round(seeded.importRate).toLocaleString('en-US')} records/s\n`);
  }
  const server = await startServer(env);
  const { token, sample } = seeded;
  const pick = (i: number) => sample[(i * 7919) % sample.length]!;
  const fragment = syllableWord(3).slice(0, 4);
  const filtered = { filters: [{ key: 'name', operator: 'contains', value: fragment }, { key: 'status', operator: 'equals', value: 'active' }], sort: [{ key: 'due', direction: 'desc' }], limit: 25 };
  const figures: Figure[] = [];
  if (process.env.BENCH_REUSE) {
    figures.push(await measure('get by uuid (warm-up)', token, (i) => ({ method: 'GET', path: `/api/v2/deal/${pick(i)}` })));
    figures.length = 0;
  }
  // How many records the filtered query matches (the 200th page starts at the 4,976th).
  let matches = 0;
  await request({ method: 'POST', path: '/api/v2/deal/index', body: { ...filtered, page: 0 } }, token, (text) => (matches = JSON.parse(text).total));
  process.stdout.write(`  the filtered query matches ${matches.toLocaleString('en-US')} records\n`);
  try {
    if (OPS.has('create')) figures.push(await measure('create', token, (i) => ({ method: 'POST', path: '/api/v2/deal', body: { properties: benchRecord(n + 10_000_000 + i) } })));
    if (OPS.has('get')) figures.push(await measure('get by uuid', token, (i) => ({ method: 'GET', path: `/api/v2/deal/${pick(i)}` })));
    if (OPS.has('update')) figures.push(await measure('update', token, (i) => ({ method: 'PUT', path: `/api/v2/deal/${pick(i)}`, body: { properties: { amount: (i % 100_000) / 100 } } })));
    if (OPS.has('index')) figures.push(await measure(`index: name contains "${fragment}", status = active, due desc, first page`, token, () => ({ method: 'POST', path: '/api/v2/deal/index', body: { ...filtered, page: 0 } })));
    if (OPS.has('index')) figures.push(await measure('  same, the 200th page', token, () => ({ method: 'POST', path: '/api/v2/deal/index', body: { ...filtered, page: 199 } })));
    if (OPS.has('text')) figures.push(await measure(`free text "${syllableWord(11)}"`, token, (i) => ({ method: 'POST', path: '/api/v2/deal/index', body: { query: syllableWord(11 + (i % 5)), limit: 25 } })));
    if (OPS.has('mixed')) figures.push(...(await measureTogether(token, mixed(pick, filtered, ''))));
    if (OPS.has('extra')) {
      // How the cost follows the candidates: a rarer fragment, and unfiltered lists.
      const rare = syllableWord(3);
      const rareFilter = { ...filtered, filters: [{ key: 'name', operator: 'contains', value: rare }, filtered.filters[1]] };
      let rareMatches = 0;
      await request({ method: 'POST', path: '/api/v2/deal/index', body: { ...rareFilter, page: 1 } }, token, (text) => (rareMatches = JSON.parse(text).total));
      figures.push(await measure(`index: name contains "${rare}" (${rareMatches} matches), status = active, due desc, first page`, token, () => ({ method: 'POST', path: '/api/v2/deal/index', body: { ...rareFilter, page: 1 } })));
      figures.push(await measure('index: unfiltered, due desc, page 1', token, () => ({ method: 'POST', path: '/api/v2/deal/index', body: { sort: [{ key: 'due', direction: 'desc' }], page: 1 } })));
      figures.push(await measure('  same, the 200th page', token, () => ({ method: 'POST', path: '/api/v2/deal/index', body: { sort: [{ key: 'due', direction: 'desc' }], page: 200 } })));
      figures.push(await measure('index: unfiltered, default order, page 200', token, () => ({ method: 'POST', path: '/api/v2/deal/index', body: { page: 200 } })));
      figures.push(await measure('index: email equals one address', token, (i) => ({ method: 'POST', path: '/api/v2/deal/index', body: { filters: [{ key: 'email', operator: 'equals', value: `contact${(i * 7919) % n}@${syllableWord((i * 7919) % n)}.example` }] } })));
    }
  } finally {
    const mem = memory(server.pid!);
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    if (OPS.has('index') || OPS.has('text') || OPS.has('mixed')) {
      // The same requests on a server without the result cache: what every request costs when
      // the object changes between them (each one reads all its matches).
      const bare = await startServer({ ...env, INDEX_CACHE_ENTRIES: '0' });
      try {
        if (OPS.has('index')) figures.push(await measure('index page 1, no result cache', token, () => ({ method: 'POST', path: '/api/v2/deal/index', body: { ...filtered, page: 0 } })));
        if (OPS.has('index')) figures.push(await measure('  same, the 200th page', token, () => ({ method: 'POST', path: '/api/v2/deal/index', body: { ...filtered, page: 199 } })));
        if (OPS.has('text')) figures.push(await measure('free text, no result cache', token, (i) => ({ method: 'POST', path: '/api/v2/deal/index', body: { query: syllableWord(11 + (i % 5)), limit: 25 } })));
        if (OPS.has('mixed')) figures.push(...(await measureTogether(token, mixed(pick, filtered, ', no result cache'))));
      } finally {
        bare.kill('SIGTERM');
        await new Promise((r) => bare.once('exit', r));
      }
    }
    const width = Math.max(...figures.map((f) => f.label.length));
    process.stdout.write(`  ${'operation'.padEnd(width)}  ${'req/s'.padStart(8)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}  ${'RSS MiB'.padStart(8)}  errors\n`);
    for (const f of figures) {
      process.stdout.write(`  ${f.label.padEnd(width)}  ${Math.round(f.rps).toString().padStart(8)}  ${f.p50.toFixed(1).padStart(8)}  ${f.p99.toFixed(1).padStart(8)}  ${Math.round(f.rss).toString().padStart(8)}  ${f.errors}\n`);
    }
    process.stdout.write(`  server memory: peak ${Math.round(mem.peak)} MiB RSS (now ${Math.round(mem.now)} MiB); ${n.toLocaleString('en-US')} records, concurrency ${CONCURRENCY}, ${SECONDS} s per figure after ${WARMUP} s of warm-up\n`);
  }
}

if (ONLY !== 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-records-'));
  try {
    await bench('PGlite (in the server process)', PGLITE_N, { DATA_DIR: dir, DATABASE_URL: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ONLY !== 'pglite') {
  if (!process.env.DATABASE_URL) process.stdout.write('\nPostgreSQL: skipped (set DATABASE_URL to measure it)\n');
  else {
    const name = process.env.BENCH_DATABASE ?? `platform_bench_records_${process.pid}`;
    const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
    if (!process.env.BENCH_REUSE) {
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`create database ${name}`);
    }
    try {
      await bench('PostgreSQL', PG_N, { DATABASE_URL: databaseUrlFor(process.env.DATABASE_URL, name) });
    } finally {
      if (!process.env.BENCH_KEEP && !process.env.BENCH_REUSE) await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  }
}
agent.destroy();
