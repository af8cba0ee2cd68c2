/**
 * (Over 300 lines: one benchmark's whole scenario, both servers seeded and compared, read top to
 * bottom; a fresh process's first queries are in first-queries.ts.)
 *
 * `npm run bench:compare`: this project against a limit server (bench/limit.server.ts: Fastify and
 * pg over one JSONB table, no history) on the same PostgreSQL (DATABASE_URL's server; a scratch
 * database of its own, dropped after unless BENCH_KEEP=1 or BENCH_REUSE=1). Both are seeded with the same BENCH_N
 * records (default 100,000) of a ten-property object through their own write paths (the project's
 * records service, BENCH_SEED_BATCH (100) records a command appended together as `handleCreations`
 * does; the limit server's POST /records/batch, one multi-row insert a batch; BENCH_SEED_CONCURRENCY
 * (4) batches in flight on each side), then each operation runs interleaved, A B A B, for
 * BENCH_ROUNDS rounds of BENCH_SECONDS seconds per side at BENCH_CONCURRENCY (16) clients, after
 * BENCH_WARMUP (2) seconds per side that are not counted. The
 * list operations run with the project's result cache off (INDEX_CACHE_ENTRIES=0), then on.
 * Prints requests/s, p99 and the ratio (project / limit). Not a test; figures of a loaded machine
 * are only comparable as ratios of one run. Each side's CPU time per request is printed too: its
 * server process and the database's backends (read from /proc: PostgreSQL must run on this
 * machine, else those columns are 0), and their ratio, which a loaded machine disturbs much less
 * than requests/s. BENCH_KEEP=1 BENCH_DATABASE=<name> keeps the seeded database; a later run with
 * BENCH_REUSE=1 and the same BENCH_DATABASE and BENCH_N starts from it without seeding (the update
 * operation changes its records: a reused database is not the fresh seed). BENCH_OPS: the operations whose label starts with one of
 * these (comma-separated: `create,update`); BENCH_SALT: moves the updates' values (random by
 * default) so a rerun on a reused database writes fresh values; BENCH_UPDATE=numbers: the update
 * sets two numbers only; BENCH_SERVER_FLAGS: extra node flags for the project's server; BENCH_CPU_PROF=<dir>: the project's server writes a
 * V8 CPU profile there (node --cpu-prof) when it stops. BENCH_CLIENT_READ=bytes: the clients read
 * each reply's bytes and check its status without parsing its JSON (as wrk or autocannon do); the
 * default, `json`, parses every reply.
 *
 * BENCH_CONTENT: what the limit server answers. `plain`: its rows as stored (about 12 KB a
 * 25-record page); `same`: the project's content (each record as spec 2.2 renders it, its writers
 * joined from a `limit_users` table holding the project's seeded user and written as 2.3
 * record-like objects: about 51 KB a page on both sides); `both` (default): a limit process in
 * each mode over the same tables, each operation run against plain then same, and a table printed
 * for each, labelled; the targets are read in the same-content table. Each row also gives each
 * side's average reply size (20 requests sampled before the warm-up, reads only), and at start
 * the same-content replies of a get, a list page and a free-text page are checked to have the
 * same keys as the project's, recursively (a WARNING lists what differs). Helpers in compare.content.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { Pool } from 'undici';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { compareRecord } from './compare.data.js';
import { syllableWord } from './records.data.js';
import { productionEnv } from './server-env.js';
import { processCpuMs } from './proc-cpu.js';
import { buildsSettled, firstQueries, loopMaxMs } from './first-queries.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { call, contentModes, keyDifferences, limitWriterSetup, replyBytes, type Content, type Req } from './compare.content.js';

const N = Number(process.env.BENCH_N ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const OPS = process.env.BENCH_OPS?.split(',');
/** Moves the updates' values (BENCH_SALT; a random one by default, printed). */
const SALT = Number(process.env.BENCH_SALT ?? Math.floor(Math.random() * 1_000_000_000));
/** BENCH_UPDATE=numbers: the update sets two numbers (no text: the record's free-text document stays). */
const UPDATE = process.env.BENCH_UPDATE ?? 'fields';
/** Extra node flags for the project's server (BENCH_SERVER_FLAGS, space-separated: `--max-semi-space-size=64`). */
const SERVER_FLAGS = process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [];
/** Seeding: records per request / command (BENCH_SEED_BATCH, 100) and requests in flight (BENCH_SEED_CONCURRENCY, 4). */
const SEED_BATCH = Math.max(1, Number(process.env.BENCH_SEED_BATCH ?? 100));
const SEED_CONCURRENCY = Math.max(1, Number(process.env.BENCH_SEED_CONCURRENCY ?? 4));
/** Seconds each side runs an operation before it is measured (BENCH_WARMUP; 0: none). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = process.env.BENCH_DATABASE ?? `platform_compare_${process.pid}`;
const url = databaseUrlFor(BASE_URL, DB);
/** The limit server's content modes to run (BENCH_CONTENT: plain, same or both). */
const CONTENTS = contentModes();
/** The project's /metrics token: its event-loop delay and its index builds are read there. */
const METRICS_TOKEN = randomBytes(24).toString('hex');
const say = (s: string) => process.stdout.write(`${s}\n`);

function spawnNode(args: string[], env: Record<string, string>, capture: boolean, flags: string[] = []): ChildProcess {
  return spawn(process.execPath, [...flags, '--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', capture ? 'pipe' : 'ignore', 'inherit'] });
}

async function waitFor(pool: Pool, path: string) {
  for (let i = 0; i < 600; i++) {
    try {
      const res = await pool.request({ method: 'GET', path });
      await res.body.dump();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`no answer on ${path}`);
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

/** What the clients do with a reply (BENCH_CLIENT_READ): parse its JSON (`json`), or read its bytes only (`bytes`). */
const CLIENT_READ = process.env.BENCH_CLIENT_READ === 'bytes' ? 'bytes' : 'json';

interface Side {
  pool: Pool;
  token?: string;
  /** The side's server process (its CPU time is read from /proc). */
  pid: () => number | undefined;
  latencies: number[];
  errors: number;
  seconds: number;
  /** CPU ms spent by the server process and by the database's backends while this side ran. */
  serverCpu: number;
  dbCpu: number;
  /** CPU ms this bench's own process (the clients: requests sent, replies read and parsed) spent while this side ran. */
  clientCpu: number;
}

/**
 * The CPU time of the bench database's backends (PostgreSQL on this machine: /proc), by pid. Only
 * one side runs at a time, so what they spend while it runs is that side's database work, on a
 * loaded machine as on a quiet one (unlike requests/s).
 */
async function dbCpu(): Promise<Map<number, number>> {
  const rows = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [DB]);
  return new Map(rows.map((r) => [r.pid, (processCpuMs(r.pid) ?? 0)]));
}

/** CONCURRENCY clients for `seconds` (SECONDS) on one side. */
async function drive(side: Side, next: (i: number) => Req, seconds = SECONDS) {
  const db0 = await dbCpu();
  const server0 = processCpuMs(side.pid()) ?? 0;
  const client0 = process.cpuUsage();
  const started = Date.now();
  const until = started + seconds * 1000;
  let i = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const t0 = performance.now();
        const res = await call(side.pool, next(i++), side.token);
        await (CLIENT_READ === 'bytes' ? res.dump() : res.json().catch(() => undefined));
        if (res.status >= 300) side.errors++;
        side.latencies.push(performance.now() - t0);
      }
    }),
  );
  side.seconds += (Date.now() - started) / 1000;
  side.serverCpu += (processCpuMs(side.pid()) ?? 0) - server0;
  const client = process.cpuUsage(client0);
  side.clientCpu += (client.user + client.system) / 1000;
  for (const [pid, ms] of await dbCpu()) side.dbCpu += ms - (db0.get(pid) ?? 0);
}

interface Op {
  label: string;
  limit: (i: number) => Req;
  project: (i: number) => Req;
}

/** The rows of each content mode's table, printed together after each cache mode's operations. */
const figures = new Map<Content, string[][]>();
/** Reads (whose replies' sizes are sampled before they are timed): a GET or an index request. */
const isRead = (req: Req) => req.method === 'GET' || req.path.endsWith('/index');

async function compare(op: Op, content: Content, limit: { pool: Pool; token: string; pid?: number }, project: Pool, token: string, projectPid?: number) {
  const a: Side = { pool: limit.pool, token: limit.token, pid: () => limit.pid, latencies: [], errors: 0, seconds: 0, serverCpu: 0, dbCpu: 0, clientCpu: 0 };
  const b: Side = { pool: project, token, pid: () => projectPid, latencies: [], errors: 0, seconds: 0, serverCpu: 0, dbCpu: 0, clientCpu: 0 };
  // Each side's average reply, from 20 requests before the warm-up (reads only: writes would add records).
  const size = isRead(op.limit(0))
    ? `${((await replyBytes(a.pool, (i) => op.limit(8_000_000 + i), a.token)) / 1024).toFixed(1)} / ${((await replyBytes(b.pool, (i) => op.project(8_000_000 + i), b.token)) / 1024).toFixed(1)}`
    : '-';
  // Warm-up, not counted: each side's first requests of an operation (JIT, plan caches, the
  // in-process index's first columns, postings and row order) are a start cost, not the steady state.
  if (WARMUP > 0) {
    const unused = (s: Side): Side => ({ ...s, latencies: [], errors: 0, seconds: 0, serverCpu: 0, dbCpu: 0, clientCpu: 0 });
    await drive(unused(a), (i) => op.limit(9_000_000 + i), WARMUP);
    await drive(unused(b), (i) => op.project(9_000_000 + i), WARMUP);
  }
  // The in-process index builds in the background (ADR 0019): measured once it is built.
  await buildsSettled(project, METRICS_TOKEN);
  await loopMaxMs(project, METRICS_TOKEN);
  let offset = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const base = offset;
    await drive(a, (i) => op.limit(base + i));
    await drive(b, (i) => op.project(base + i));
    offset += 1_000_000;
  }
  const loop = await loopMaxMs(project, METRICS_TOKEN);
  const stat = (s: Side) => {
    s.latencies.sort((x, y) => x - y);
    const n = Math.max(1, s.latencies.length);
    return { rps: s.latencies.length / s.seconds, p99: s.latencies[Math.floor(s.latencies.length * 0.99)] ?? 0, server: s.serverCpu / n, db: s.dbCpu / n, client: s.clientCpu / n };
  };
  const x = stat(a);
  const y = stat(b);
  const cpu = (s: { server: number; db: number }) => `${s.server.toFixed(3)} + ${s.db.toFixed(3)}`;
  const row = [
    op.label, x.rps.toFixed(1), x.p99.toFixed(1), y.rps.toFixed(1), y.p99.toFixed(1), `${(y.rps / x.rps).toFixed(2)}x`, `${a.errors}/${b.errors}`,
    cpu(x), cpu(y), `${((x.server + x.db) / (y.server + y.db)).toFixed(2)}x`, `${x.client.toFixed(3)} / ${y.client.toFixed(3)}`, size, loop.toFixed(0),
  ];
  (figures.get(content) ?? figures.set(content, []).get(content)!).push(row);
  say(`  [${content}] ${row.join(' | ')}`);
}

const admin = createPostgresDb({ connectionString: adminUrl(BASE_URL), max: 1 });
if (!process.env.BENCH_REUSE) {
  await admin.query(`drop database if exists ${DB} with (force)`);
  await admin.query(`create database ${DB}`);
}
const children: ChildProcess[] = [];
try {
  // The limit server, one process per content mode (started one after the other: each creates the
  // tables if missing), over the same tables; seeded through the first one's POST. The caller's
  // token on the limit side is its writer's uuid (limit.server.ts).
  const limits = new Map<Content, { pool: Pool; child: ChildProcess }>();
  for (const content of CONTENTS) {
    const port = await freePort();
    const child = spawnNode(['bench/limit.server.ts'], { LIMIT_DATABASE_URL: url, PORT: String(port), LIMIT_CONTENT: content }, false);
    children.push(child);
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
    await waitFor(pool, '/records/00000000-0000-0000-0000-000000000000');
    limits.set(content, { pool, child });
  }
  const limit = limits.get(CONTENTS[0]!)!.pool;
  const limitIds: string[] = [];
  let seedToken = '';
  let projectSample: string[] = [];
  let limitWriter: string | undefined;
  if (!process.env.BENCH_REUSE) {
    say(`seeding the limit server with ${N.toLocaleString('en-US')} records through its POST (${SEED_BATCH} a request, ${SEED_CONCURRENCY} in flight)...`);
    limitWriter = randomUUID();
    let t0 = Date.now();
    let next = 0;
    const step = Math.max(1, Math.floor(N / 20_000));
    await Promise.all(
      Array.from({ length: SEED_CONCURRENCY }, async () => {
        for (;;) {
          const from = next;
          if (from >= N) return;
          const to = Math.min(N, from + SEED_BATCH);
          next = to;
          const data = Array.from({ length: to - from }, (_, k) => compareRecord(from + k));
          const res = await call(limit, { method: 'POST', path: '/records/batch', body: { data } }, limitWriter);
          const { ids } = (await res.json()) as { ids: string[] };
          if (res.status !== 201 || ids.length !== data.length) throw new Error(`limit seed: ${res.status}`);
          ids.forEach((id, k) => (from + k) % step === 0 && limitIds.push(id));
        }
      }),
    );
    say(`  ${Math.round(N / ((Date.now() - t0) / 1000))} records/s`);
    // What autovacuum would do for the limit server (PostgreSQL here may run without it).
    const direct = createPostgresDb({ connectionString: url, max: 1 });
    await direct.query('vacuum analyze limit_records');
    await direct.close();
    say(`seeding the project with ${N.toLocaleString('en-US')} records through its records service...`);
    t0 = Date.now();
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawnNode(['bench/records.seed.ts'], {
        DATABASE_URL: url, BENCH_N: String(N), BENCH_SMALL_TENANTS: '0', BENCH_DATA: 'compare', BENCH_NO_VACUUM: '1',
        BENCH_SEED_BATCH: String(SEED_BATCH), BENCH_SEED_CONCURRENCY: String(SEED_CONCURRENCY),
      }, true);
      let text = '';
      child.stdout!.on('data', (d) => (text += d));
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`seed exited with ${code}`))));
    });
    const seeded = JSON.parse(out.trim().split('\n').pop()!);
    seedToken = seeded.token;
    projectSample = seeded.sample;
    say(`  ${Math.round(N / ((Date.now() - t0) / 1000))} records/s`);
    // What a later run with BENCH_REUSE=1 (and this BENCH_DATABASE, kept by BENCH_KEEP=1) starts from.
    const state = createPostgresDb({ connectionString: url, max: 1 });
    await state.query('create table bench_compare_state (state jsonb not null)');
    await state.query('insert into bench_compare_state values ($1)', [JSON.stringify({ n: N, limitIds, token: seedToken, sample: projectSample, limitWriter })]);
    await state.close();
  } else {
    // The seeded database of an earlier run (BENCH_DATABASE, kept by BENCH_KEEP=1): no seed. The
    // token is a session of that run (SESSION_TTL_MS, a day by default).
    const state = createPostgresDb({ connectionString: url, max: 1 });
    const [row] = await state.query<{ state: { n: number; limitIds: string[]; token: string; sample: string[]; limitWriter?: string } }>('select state from bench_compare_state');
    if (!row || row.state.n !== N) throw new Error(`BENCH_REUSE: ${DB} holds ${row?.state.n ?? 'no'} seeded records, not BENCH_N=${N}`);
    limitIds.push(...row.state.limitIds);
    seedToken = row.state.token;
    projectSample = row.state.sample;
    limitWriter = row.state.limitWriter;
    await state.close();
    say(`reusing ${DB}: ${N.toLocaleString('en-US')} records seeded by an earlier run`);
  }
  // The limit side's writer is the project's seeded user (its fields copied into limit_users). A
  // seed from before the same-content mode has none: its limit records are given one, kept here.
  const known = limitWriter;
  limitWriter = await limitWriterSetup(url, limit, projectSample[0]!, limitWriter);
  if (!known) {
    const state = createPostgresDb({ connectionString: url, max: 1 });
    await state.query(`update bench_compare_state set state = state || jsonb_build_object('limitWriter', $1::text)`, [limitWriter]);
    await state.close();
  }
  const pickA = (i: number) => limitIds[(i * 7919) % limitIds.length]!;
  const pickB = (i: number) => projectSample[(i * 7919) % projectSample.length]!;
  const fragment = process.env.BENCH_FRAGMENT ?? 'ru';
  const listA = (page: number): Req => ({ method: 'POST', path: '/records/index', body: { contains: fragment, status: 'active', sort: 'due', page, limit: 25 } });
  const listB = (page: number): Req => ({
    method: 'POST',
    path: '/api/v2/deal/index',
    body: { filters: [{ key: 'name', operator: 'contains', value: fragment }, { key: 'status', operator: 'equals', value: 'active' }], sort: [{ key: 'due', direction: 'desc' }], page, limit: 25 },
  });
  const word = (i: number) => syllableWord(11 + (i % 5));
  // An update's values move with BENCH_SALT, so that a run on a reused database writes values its
  // records do not hold already (an update that changes nothing appends nothing).
  const fields = (i: number) => ({ status: i % 3 ? 'active' : 'won', amount: ((i + SALT) % 10_000_000) / 100, city: `City ${(i + SALT) % 50}` });
  const numbers = (i: number) => ({ amount: ((i + SALT) % 10_000_000) / 100, priority: (i + SALT) % 5 });
  const ops: Op[] = [
    { label: 'get by uuid', limit: (i) => ({ method: 'GET', path: `/records/${pickA(i)}` }), project: (i) => ({ method: 'GET', path: `/api/v2/deal/${pickB(i)}` }) },
    { label: `filtered list page 1 (name contains "${fragment}", status = active, due desc)`, limit: () => listA(0), project: () => listB(0) },
    { label: 'same, page 200', limit: () => listA(199), project: () => listB(199) },
    { label: 'free text (one word)', limit: (i) => ({ method: 'POST', path: '/records/index', body: { query: word(i), page: 0, limit: 25 } }), project: (i) => ({ method: 'POST', path: '/api/v2/deal/index', body: { query: word(i), limit: 25 } }) },
    { label: 'create', limit: (i) => ({ method: 'POST', path: '/records', body: { data: compareRecord(N + 10_000_000 + i) } }), project: (i) => ({ method: 'POST', path: '/api/v2/deal', body: { properties: compareRecord(N + 10_000_000 + i) } }) },
    UPDATE === 'numbers'
      ? {
          label: 'update (2 numbers)',
          limit: (i) => ({ method: 'PUT', path: `/records/${pickA(i)}`, body: { data: numbers(i) } }),
          project: (i) => ({ method: 'PUT', path: `/api/v2/deal/${pickB(i)}`, body: { properties: numbers(i) } }),
        }
      : {
          label: 'update (3 fields)',
          limit: (i) => ({ method: 'PUT', path: `/records/${pickA(i)}`, body: { data: fields(i) } }),
          project: (i) => ({ method: 'PUT', path: `/api/v2/deal/${pickB(i)}`, body: { properties: fields(i) } }),
        },
  ];
  const wanted = (label: string) => !OPS || OPS.some((o) => label.toLowerCase().startsWith(o));
  const serverEnv = { DATABASE_URL: url, HOST: '127.0.0.1', LOG_LEVEL: 'error', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', METRICS_TOKEN, ...productionEnv };
  // off: the result cache off (the in-process index of ADR 0006 on: it is an index, not a cache of
  // answers); on: the defaults; sql: both off, the database's indexes alone.
  const modes = (process.env.BENCH_MODES ?? 'off,on,sql').split(',') as ('off' | 'on' | 'sql')[];
  for (const cache of modes) {
    const env: Record<string, string> = cache === 'off' ? { INDEX_CACHE_ENTRIES: '0' } : cache === 'sql' ? { INDEX_CACHE_ENTRIES: '0', INDEX_STORE_CELLS: '0' } : {};
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const port = await freePort();
    const server = spawnNode(['src/main.ts'], { ...serverEnv, PORT: String(port), ...env }, false, [...SERVER_FLAGS, ...profile]);
    children.push(server);
    const project = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
    await waitFor(project, '/api/v2/health');
    // The limit server's table was vacuumed and analyzed after its seed; the project's seed leaves
    // that to the server's own statistics check (src/db/statistics.ts, every 30 s), which is
    // waited for here, so that its one-off analysis of the seeded tables is not counted in the
    // first operation's figures.
    const direct = createPostgresDb({ connectionString: url, max: 1 });
    for (let i = 0; i < 120; i++) {
      const [analyzed] = await direct.query<{ done: boolean }>(`select last_analyze is not null as done from pg_stat_user_tables where relname = 'record_values'`);
      if (analyzed?.done) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await direct.close();
    if (cache !== 'sql') {
      say(`\nresult cache ${cache}: a fresh process`);
      await firstQueries(project, seedToken, METRICS_TOKEN, [
        { label: 'free text (one word)', request: { method: 'POST', path: '/api/v2/deal/index', body: { query: word(1), limit: 25 } } },
        { label: 'filtered list page 1', request: listB(0) },
      ], say);
    }
    if (cache === modes[0] && limits.has('same')) {
      // Same content: the replies of both sides should have the same keys, recursively.
      const same = limits.get('same')!.pool;
      for (const [what, x, y] of [['get', ops[0]!.limit(0), ops[0]!.project(0)], ['filtered list', listA(0), listB(0)], ['free text', ops[3]!.limit(0), ops[3]!.project(0)]] as const) {
        const diff = keyDifferences(await (await call(same, x, limitWriter)).json(), await (await call(project, y, seedToken)).json());
        say(diff.length ? `\nWARNING: same-content ${what} replies differ in keys:\n  ${diff.join('\n  ')}` : `\nsame-content ${what}: both replies have the same keys, recursively`);
      }
    }
    const a = await (await call(limit, listA(0))).json();
    const b = await (await call(project, listB(0), seedToken)).json();
    const title = cache === 'sql' ? 'result cache and in-process index off (SQL alone)' : `result cache ${cache}`;
    say(`\n${title} (update values salted with BENCH_SALT=${SALT}${SERVER_FLAGS.length ? `; server flags ${SERVER_FLAGS.join(' ')}` : ''}): the filtered list matches ${a.total} (limit) / ${b.total} (project) records; ${ROUNDS} rounds of ${SECONDS} s per side, ${CONCURRENCY} clients; limit content ${CONTENTS.join(' then ')} for each operation`);
    figures.clear();
    for (const op of ops) {
      if (cache !== 'off' && !/list|page|free text/.test(op.label)) continue;
      const suffix = cache === 'on' ? ', result cache on' : cache === 'sql' ? ', SQL alone' : '';
      if (!wanted(op.label)) continue;
      for (const content of CONTENTS) {
        const side = limits.get(content)!;
        await compare({ ...op, label: `${op.label}${suffix}` }, content, { pool: side.pool, token: limitWriter, pid: side.child.pid }, project, seedToken, server.pid);
      }
    }
    for (const content of CONTENTS) {
      say(`\n${title}, limit server content ${content === 'same' ? 'same (writers joined, spec 2.2/2.3 records: the targets are read here)' : 'plain (rows as stored)'}:`);
      say('  operation | limit req/s | limit p99 ms | project req/s | project p99 ms | ratio | errors | limit CPU ms/req (server + db) | project CPU ms/req | CPU ratio (limit / project) | bench client CPU ms/req (limit / project) | reply KB (limit / project) | project event loop worst ms');
      for (const row of figures.get(content) ?? []) say(`  ${row.join(' | ')}`);
    }
    await project.close();
    await stop(server);
  }
  for (const { pool } of limits.values()) await pool.close();
} finally {
  for (const c of children) await stop(c);
  if (!process.env.BENCH_KEEP && !process.env.BENCH_REUSE) await admin.query(`drop database if exists ${DB} with (force)`);
  await admin.close();
}
say(`\n${N.toLocaleString('en-US')} records; ratios are of one interleaved run (A B A B) on one machine.`);
