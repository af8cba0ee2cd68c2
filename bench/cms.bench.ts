/**
 * `npm run bench:cms`: webpages under load. For PGlite, and for PostgreSQL when DATABASE_URL is
 * set: starts the server as its own process on a fresh database, sets up one company through the
 * API (an environment, an object with the Page trait, 16 pages and a published one), gives one
 * page BENCH_REVISIONS revisions (default 10,000), then measures, each for BENCH_SECONDS after
 * BENCH_WARMUP seconds that are not counted:
 * - patches at 16 concurrent editors (BENCH_CONCURRENCY), each on its own page, each batch
 *   sent with the revision its last answer gave;
 * - public page reads (GET /webpages/public/{rootSlug}/{slug}), and a record GET beside it;
 * - reading revision 1 (and the last one) of the page with BENCH_REVISIONS revisions: the time
 *   of single requests, one at a time.
 * BENCH_ONLY=pglite|postgres runs one; BENCH_NODE_ARGS adds node flags to the server (--cpu-prof).
 * Prints a table; not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { benchHttp, type Req } from './bench-http.js';
import { processCpuMs } from './proc-cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const REVISIONS = Number(process.env.BENCH_REVISIONS ?? 10_000);
const ONLY = process.env.BENCH_ONLY; // 'pglite' | 'postgres'
const PORT = 3950 + (process.pid % 40);

const { request, must, startServer, close } = benchHttp(PORT, CONCURRENCY);

interface Figure {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time per request (ms): the server process, and the PostgreSQL backends of the bench database. */
  cpuServer: number;
  cpuDb: number;
}

/** The processes whose CPU time a figure counts: the server, and (PostgreSQL) the bench database's backends. */
let cpuPids: () => Promise<{ server: number[]; db: number[] }> = async () => ({ server: [], db: [] });
/**
 * CPU time of the processes of a figure over its counted seconds, read every 250 ms: a process
 * that leaves (a pooled connection closed when idle) counts up to its last reading, one that comes
 * counts from its start. A figure per request is robust to a loaded machine, unlike req/s.
 */
function cpuMeter() {
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  let started = false;
  const read = async () => {
    const p = await cpuPids();
    for (const [side, pids] of [['server', p.server], ['db', p.db]] as const) {
      for (const pid of pids) {
        const ms = processCpuMs(pid);
        if (ms === null) continue;
        const key = `${side}:${pid}`;
        if (!first.has(key)) first.set(key, started ? 0 : ms);
        last.set(key, ms);
      }
    }
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    async start() {
      await read();
      started = true;
      timer = setInterval(() => void read(), 250);
    },
    async stop() {
      clearInterval(timer);
      await read();
      const total = (side: string) => [...last].filter(([k]) => k.startsWith(`${side}:`)).reduce((s, [k, ms]) => s + ms - first.get(k)!, 0);
      return started ? { server: total('server'), db: total('db') } : { server: 0, db: 0 };
    },
  };
}

/** CONCURRENCY clients for SECONDS after WARMUP; client k sends next(k) one request after another. */
async function measure(label: string, token: string, next: (client: number) => Req, after?: (client: number, body: any) => void): Promise<Figure> {
  const counted = Date.now() + WARMUP * 1000;
  const until = counted + SECONDS * 1000;
  const latencies: number[] = [];
  let errors = 0;
  const meter = cpuMeter();
  const warm = setTimeout(() => void meter.start(), WARMUP * 1000);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, k) => {
      while (Date.now() < until) {
        const t0 = process.hrtime.bigint();
        const res = await request(next(k), token);
        if (res.status >= 300) errors++;
        else after?.(k, res.body);
        if (Date.now() >= counted) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  clearTimeout(warm);
  const cpu = await meter.stop();
  const cpuServer = cpu.server / Math.max(1, latencies.length);
  const cpuDb = cpu.db / Math.max(1, latencies.length);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { label, rps: latencies.length / ((Date.now() - counted) / 1000), p50: q(0.5), p99: q(0.99), errors, cpuServer, cpuDb };
}

/** An editor's batch: an SEO change and a module added; every 100th batch clears the modules (a page holds at most 500). */
const editorBatch = (revision: number) =>
  revision % 100 === 99 ? [{ op: 'replaceModules', modules: [] }] : [{ op: 'setSeo', seo: { title: `t${revision}` } }, { op: 'addModule', index: 0, module: { module: 'text', fields: { n: revision } } }];

async function bench(label: string, env: Record<string, string>, backends: () => Promise<number[]> = async () => []) {
  process.stdout.write(`\n${label}: setting up, ${REVISIONS.toLocaleString('en-US')} revisions on one page...\n`);
  const server = await startServer(env, (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean));
  cpuPids = async () => ({ server: server.pid ? [server.pid] : [], db: await backends() });
  try {
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const subdomain = `bench-${suffix}`;
    const user = await must({ method: 'POST', path: '/api/v2/auth/register', body: { email: `cms-${suffix}@example.test`, password: 'correct horse battery staple', firstname: 'B', lastname: 'B' } }, '');
    const token: string = user.token;
    const company = await must({ method: 'POST', path: '/api/v2/companies', body: { name: 'CMS bench', subdomain } }, token);
    await must({ method: 'POST', path: `/api/v2/auth/companies/${company.uuid}/select` }, token);
    await must({ method: 'POST', path: '/api/v2/cms/environments', body: { key: 'production' } }, token);
    await must({ method: 'POST', path: '/api/v2/modules', body: { name: 'hero', fields: [{ name: 'heading', type: 'text' }, { name: 'body', type: 'text' }] } }, token);
    await must({ method: 'POST', path: '/api/v2/modules', body: { name: 'text', fields: [{ name: 'r', type: 'number' }, { name: 'n', type: 'number' }] } }, token);
    const object = await must({ method: 'POST', path: '/api/v2/objects', body: { name: 'article', label: 'Article' } }, token);
    await must({ method: 'POST', path: `/api/v2/objects/${object.uuid}/properties`, body: { name: 'headline', label: 'Headline', type: 'string', format: 'text' } }, token);
    await must({ method: 'POST', path: `/api/v2/traits/${object.uuid}/Page`, body: { titleProperty: 'headline' } }, token);
    const pages: { recordUuid: string; uuid: string; slug: string; revision: number }[] = [];
    for (let i = 0; i < CONCURRENCY + 2; i++) {
      const record = await must({ method: 'POST', path: '/api/v2/article', body: { properties: { headline: `Article ${i}` } } }, token);
      const page = await must({ method: 'POST', path: '/api/v2/webpages', body: { recordUuid: record.uuid } }, token);
      pages.push({ recordUuid: record.uuid, uuid: page.uuid, slug: page.slug, revision: 0 });
    }
    const published = pages[CONCURRENCY]!;
    await must({ method: 'POST', path: `/api/v2/webpages/v2/pages/${published.recordUuid}/patch`, body: { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { module: 'hero', fields: { heading: 'Welcome', body: 'x'.repeat(400) } } }] } }, token);
    await must({ method: 'PUT', path: `/api/v2/webpages/${published.uuid}/publish`, body: {} }, token);

    // The long page: REVISIONS batches, one after another.
    const long = pages[CONCURRENCY + 1]!;
    const t0 = Date.now();
    for (let r = 0; r < REVISIONS; r++) {
      const op = r % 50 === 0 ? { op: 'replaceModules', modules: [{ module: 'text', fields: { r } }] } : { op: 'addModule', index: 0, module: { module: 'text', fields: { r } } };
      await must({ method: 'POST', path: `/api/v2/webpages/v2/pages/${long.recordUuid}/patch`, body: { locale: 'en', expectedRevision: r, patches: [op] } }, token);
    }
    process.stdout.write(`  ${REVISIONS.toLocaleString('en-US')} revisions written one after another in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);

    const figures: Figure[] = [];
    figures.push(
      await measure(
        `patches, ${CONCURRENCY} editors on distinct pages`,
        token,
        (k) => ({ method: 'POST', path: `/api/v2/webpages/v2/pages/${pages[k]!.recordUuid}/patch`, body: { locale: 'en', expectedRevision: pages[k]!.revision, patches: editorBatch(pages[k]!.revision) } }),
        (k, body) => (pages[k]!.revision = body.data.document.revision),
      ),
    );
    figures.push(await measure('public page read', '', () => ({ method: 'GET', path: `/api/v2/webpages/public/production/${published.slug}?subdomain=${subdomain}` })));
    figures.push(await measure('record GET (for comparison)', token, () => ({ method: 'GET', path: `/api/v2/article/${published.recordUuid}` })));

    const single = async (path: string) => {
      const times: number[] = [];
      for (let i = 0; i < 50; i++) {
        const s = process.hrtime.bigint();
        const res = await request({ method: 'GET', path }, token);
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        times.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
      times.sort((a, b) => a - b);
      return { median: times[25]!, max: times[49]! };
    };
    const base = `/api/v2/webpages/v2/pages/${long.recordUuid}/history`;
    const first = await single(`${base}/1?locale=en`);
    const mid = await single(`${base}/${REVISIONS - 1}?locale=en`);
    const width = Math.max(...figures.map((f) => f.label.length));
    process.stdout.write(`  ${'operation'.padEnd(width)}  ${'req/s'.padStart(8)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}  errors  ${'CPU ms/req: server'.padStart(18)}  ${'db'.padStart(5)}\n`);
    for (const f of figures) process.stdout.write(`  ${f.label.padEnd(width)}  ${Math.round(f.rps).toString().padStart(8)}  ${f.p50.toFixed(1).padStart(8)}  ${f.p99.toFixed(1).padStart(8)}  ${String(f.errors).padStart(6)}  ${f.cpuServer.toFixed(2).padStart(18)}  ${f.cpuDb.toFixed(2).padStart(5)}\n`);
    const [patches, , get] = figures as [Figure, Figure, Figure];
    const cpu = (f: Figure) => f.cpuServer + f.cpuDb;
    process.stdout.write(`  patches/s per record GET/s: ${(patches.rps / get.rps).toFixed(2)}; CPU per patch per CPU of a record GET: ${(cpu(patches) / cpu(get)).toFixed(2)} (${cpu(patches).toFixed(2)} / ${cpu(get).toFixed(2)} ms)\n`);
    process.stdout.write(`  read revision 1 of ${REVISIONS.toLocaleString('en-US')}: median ${first.median.toFixed(1)} ms, max ${first.max.toFixed(1)} ms (50 requests, one at a time, over HTTP)\n`);
    process.stdout.write(`  read revision ${(REVISIONS - 1).toLocaleString('en-US')}: median ${mid.median.toFixed(1)} ms, max ${mid.max.toFixed(1)} ms\n`);
    process.stdout.write(`  concurrency ${CONCURRENCY}, ${SECONDS} s per figure after ${WARMUP} s of warm-up\n`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

if (ONLY !== 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-cms-'));
  try {
    await bench('PGlite (in the server process)', { DATA_DIR: dir, DATABASE_URL: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ONLY !== 'pglite') {
  if (!process.env.DATABASE_URL) process.stdout.write('\nPostgreSQL: skipped (set DATABASE_URL to measure it)\n');
  else {
    const name = `platform_bench_cms_${process.pid}`;
    const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    try {
      const backends = async () => (await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [name])).map((r) => r.pid);
      await bench('PostgreSQL', { DATABASE_URL: databaseUrlFor(process.env.DATABASE_URL, name) }, backends);
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  }
}
close();
