/**
 * `npm run bench:feeds`: a feed of BENCH_N records (default 100,000) and the content API. On
 * PostgreSQL (DATABASE_URL; a fresh database of its own) or, with BENCH_ONLY=pglite, PGlite:
 * - seeds one company through the command path (the records service, batches of records per
 *   command), with a job object of BENCH_N records, a Page-trait object with a published page,
 *   a menu, and a feed (RSS 2.0) of the job records sorted by BENCH_FEED_SORT (createdAt,
 *   or a property such as salary) descending;
 * - starts the server as its own process, reads its idle RSS, then fetches the whole feed over
 *   HTTP and prints the time, the bytes, the items and the server's peak RSS while it streamed
 *   (sampled from /proc every 20 ms), against the idle one;
 * - then content API reads (a page by slug, the settings) and a record GET beside them, each for
 *   BENCH_SECONDS at BENCH_CONCURRENCY after BENCH_WARMUP.
 * Prints figures; not a test.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { handleCreations, type CommandContext } from '../src/commands/command-handler.js';
import { loadConfig } from '../src/config.js';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { openPlatform } from '../src/platform.js';
import { makeRecordsService } from '../src/records/records.service.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { benchHttp, type Req } from './bench-http.js';

const N = Number(process.env.BENCH_N ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ONLY = process.env.BENCH_ONLY ?? 'postgres';
const PORT = 3990 + (process.pid % 9);
const MiB = 1024 * 1024;
// The feed's sort: createdAt (default: the index in creation order) or a property, e.g. salary (the engine's pivot, read page by page with an offset).
const SORT = process.env.BENCH_FEED_SORT ?? 'createdAt';

const { request, startServer, close } = benchHttp(PORT, CONCURRENCY);

/** The set-up, in this process through the API and the records service; returns what the measures need. */
async function seed(env: Record<string, string>) {
  const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10' });
  const platform = await openPlatform(config);
  const app = await buildApp({ config, db: platform.db, store: platform.store });
  await app.ready();
  let token = '';
  const call = async (method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) => {
    const res = await app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, payload: payload as Record<string, unknown> });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  try {
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const reg = await call('POST', '/api/v2/auth/register', { email: `feeds-${suffix}@bench.test`, password: 'bench password 123', firstname: 'B', lastname: 'B' });
    token = reg.token;
    const subdomain = `feeds-${suffix}`;
    const company = await call('POST', '/api/v2/companies', { name: 'Feeds bench', subdomain });
    await call('POST', `/api/v2/auth/companies/${company.uuid}/select`);
    const job = await call('POST', '/api/v2/objects', { name: 'job', label: 'Job' });
    for (const p of [{ name: 'title', type: 'string', format: 'text' }, { name: 'city', type: 'string', format: 'text' }, { name: 'description', type: 'string', format: 'text' }, { name: 'salary', type: 'number', format: 'number' }]) {
      await call('POST', `/api/v2/objects/${job.uuid}/properties`, { ...p, label: p.name });
    }
    // Records through the command path, 100 per command (handleCreations), 4 in flight.
    const records = makeRecordsService({ db: platform.db, store: platform.store });
    const started = Date.now();
    let next = 0;
    const cities = ['Oslo', 'Bergen', 'Tromsø', 'Bodø', 'Ålesund'];
    let firstUuid = '';
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (;;) {
          const from = next;
          if (from >= N) return;
          const to = Math.min(N, from + 100);
          next = to;
          const ctx: CommandContext = { tenant: company.uuid, userUuid: reg.user.uuid, requestId: `seed-${from}`, now: Date.now() };
          const made = await Promise.all(
            Array.from({ length: to - from }, (_, k) =>
              records.creation(company.uuid, 'job', { properties: { title: `Job <${from + k}> & co`, city: cities[(from + k) % cities.length], description: `A job at number ${from + k}. `.repeat(4), salary: ((from + k) * 7919) % 100_000 } }),
            ),
          );
          await handleCreations({ store: platform.store, context: ctx, writes: made.map((m) => m.write) });
          if (from === 0) firstUuid = made[0]!.uuid;
        }
      }),
    );
    process.stdout.write(`  seeded ${N.toLocaleString('en-US')} records in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    const feed = await call('POST', '/api/v2/feeds', {
      objectUuid: job.uuid,
      format: 'rss',
      title: 'All jobs',
      homeUrl: 'https://jobs.example.com',
      sort: [{ key: SORT, direction: 'desc' }],
      fields: [{ key: 'title', as: 'title' }, { key: 'description', as: 'description' }, { key: 'city', as: 'city' }, { key: 'salary', as: 'salary' }],
    });
    // The CMS side: an environment, a Page-trait object, a published page, a menu.
    await call('POST', '/api/v2/cms/environments', { key: 'production' });
    await call('POST', '/api/v2/modules', { name: 'hero', fields: [{ name: 'heading', type: 'text' }, { name: 'body', type: 'text' }] });
    const article = await call('POST', '/api/v2/objects', { name: 'article', label: 'Article' });
    await call('POST', `/api/v2/objects/${article.uuid}/properties`, { name: 'headline', label: 'Headline', type: 'string', format: 'text' });
    await call('POST', `/api/v2/traits/${article.uuid}/Page`, { titleProperty: 'headline' });
    const record = await call('POST', '/api/v2/article', { properties: { headline: 'Welcome' } });
    const page = await call('POST', '/api/v2/webpages', { recordUuid: record.uuid });
    await call('POST', `/api/v2/webpages/v2/pages/${record.uuid}/patch`, { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { module: 'hero', fields: { heading: 'Welcome', body: 'x'.repeat(400) } } }] });
    await call('PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    await call('POST', '/api/v2/webmenus', { name: 'main', label: 'Main', items: [{ label: 'Home', url: '/' }, { label: 'Welcome', pageUuid: page.uuid }] });
    if (platform.db.kind === 'postgres') {
      await platform.db.maintain('vacuum analyze records', 0);
      await platform.db.maintain('vacuum analyze record_values', 0);
    }
    return { token, subdomain, feedUrl: feed.publicUrl as string, pageSlug: page.slug as string, jobUuid: firstUuid };
  } finally {
    await app.close();
    await platform.close();
  }
}

const rssOf = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
};

/** The whole feed over HTTP, its bytes and items counted as they come; the server's RSS sampled meanwhile. */
function fetchFeed(path: string, pid: number) {
  return new Promise<{ ms: number; bytes: number; items: number; peak: number; status: number }>((resolve, reject) => {
    let peak = rssOf(pid);
    const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
    const t0 = Date.now();
    http
      .get({ host: '127.0.0.1', port: PORT, path }, (res) => {
        let bytes = 0;
        let items = 0;
        let carry = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          bytes += Buffer.byteLength(chunk);
          const text = carry + chunk;
          items += text.split('</item>').length - 1;
          carry = text.slice(-7);
          if (carry.includes('</item>')) carry = '';
        });
        res.on('end', () => {
          clearInterval(timer);
          resolve({ ms: Date.now() - t0, bytes, items, peak: Math.max(peak, rssOf(pid)), status: res.statusCode ?? 0 });
        });
      })
      .on('error', (e) => {
        clearInterval(timer);
        reject(e);
      });
  });
}

async function measure(label: string, token: string, req: Req) {
  const counted = Date.now() + WARMUP * 1000;
  const until = counted + SECONDS * 1000;
  let n = 0;
  let errors = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const t0 = process.hrtime.bigint();
        const res = await request(req, token);
        if (res.status !== 200) errors++;
        if (Date.now() >= counted) {
          n++;
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { label, rps: n / SECONDS, p50: latencies[Math.floor(latencies.length / 2)] ?? 0, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, errors };
}

async function bench(label: string, env: Record<string, string>) {
  process.stdout.write(`\n${label}: N = ${N.toLocaleString('en-US')} records\n`);
  const s = await seed(env);
  const server = await startServer({ ...env, FEED_RATE_LIMIT_MAX: '1000' });
  try {
    const pid = server.pid!;
    // Idle: after start and a few small requests (the routes' first use), nothing in flight.
    for (let i = 0; i < 20; i++) await request({ method: 'GET', path: `/api/v2/content/${s.subdomain}/settings` }, '');
    await new Promise((r) => setTimeout(r, 500));
    const idle = rssOf(pid);
    const feed = await fetchFeed(s.feedUrl, pid);
    if (feed.status !== 200 || feed.items !== N) throw new Error(`feed: status ${feed.status}, ${feed.items} items`);
    process.stdout.write(`  feed (RSS 2.0, sorted by ${SORT} desc): ${feed.items.toLocaleString('en-US')} items, ${(feed.bytes / MiB).toFixed(1)} MiB in ${(feed.ms / 1000).toFixed(2)} s (${Math.round(feed.items / (feed.ms / 1000)).toLocaleString('en-US')} items/s)\n`);
    process.stdout.write(`  server RSS: idle ${(idle / MiB).toFixed(1)} MiB, peak while streaming ${(feed.peak / MiB).toFixed(1)} MiB (+${((feed.peak - idle) / MiB).toFixed(1)} MiB; the bar: within 50 MiB)\n`);
    const figures = [
      await measure('content API: page by slug', '', { method: 'GET', path: `/api/v2/content/${s.subdomain}/pages/production/${s.pageSlug}` }),
      await measure('content API: settings', '', { method: 'GET', path: `/api/v2/content/${s.subdomain}/settings` }),
      await measure('content API: menus', '', { method: 'GET', path: `/api/v2/content/${s.subdomain}/menus` }),
      await measure('record GET (for comparison)', s.token, { method: 'GET', path: `/api/v2/job/${s.jobUuid}` }),
    ];
    const width = Math.max(...figures.map((f) => f.label.length));
    process.stdout.write(`  ${'reads'.padEnd(width)}  ${'req/s'.padStart(7)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  errors\n`);
    for (const f of figures) process.stdout.write(`  ${f.label.padEnd(width)}  ${Math.round(f.rps).toString().padStart(7)}  ${f.p50.toFixed(1).padStart(7)}  ${f.p99.toFixed(1).padStart(7)}  ${f.errors}\n`);
    process.stdout.write(`  concurrency ${CONCURRENCY}, ${SECONDS} s per figure after ${WARMUP} s of warm-up\n`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

if (ONLY === 'pglite') {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-feeds-'));
  try {
    await bench('PGlite (in the server process)', { DATA_DIR: dir, DATABASE_URL: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (!process.env.DATABASE_URL) {
  process.stdout.write('PostgreSQL: set DATABASE_URL (or BENCH_ONLY=pglite)\n');
} else {
  const name = `platform_bench_feeds_${process.pid}`;
  const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  try {
    await bench('PostgreSQL', { DATABASE_URL: databaseUrlFor(process.env.DATABASE_URL, name) });
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.close();
  }
}
close();
