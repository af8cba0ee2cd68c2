/**
 * `npm run bench:ingest`: the visitor tracking ingest on PostgreSQL (DATABASE_URL), not a test.
 * Starts the server as its own process on a fresh database, sets up a company with a site key
 * and an object, then measures for BENCH_SECONDS (10) each, after BENCH_WARMUP (2) seconds:
 * - tracked events/s at BENCH_CONCURRENCY (16) senders, batches of BENCH_BATCH (50) events, each
 *   batch answered 202 after its commit;
 * - a record create through the API at the same concurrency, as the reference in the same run;
 * - the server's RSS: idle, and its peak under a burst of twice the ingest's capacity
 *   (2 x TRACKING_MAX_PENDING senders at once for BENCH_BURST_SECONDS), with the 202s and 429s.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as undiciRequest } from 'undici';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { startServerProcess } from '../test/support/server-process.js';
import { productionEnv } from './server-env.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BATCH = Number(process.env.BENCH_BATCH ?? 50);
const MAX_PENDING = Number(process.env.TRACKING_MAX_PENDING ?? 256);
const BURST_SECONDS = Number(process.env.BENCH_BURST_SECONDS ?? 5);
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

const agent = new Agent({ connections: MAX_PENDING * 2 + 64, pipelining: 1 });
let base = '';

async function call(method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await undiciRequest(`${base}${path}`, {
    method,
    dispatcher: agent,
    headers: { 'user-agent': UA, ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : null };
}
async function must(method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
  const res = await call(method, path, token, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.data;
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const batchOf = (siteKey: string, n: number) => ({ siteKey, batchId: randomUUID(), events: Array.from({ length: n }, (_, i) => ({ eventId: randomUUID(), type: 'pageview', path: `/page/${i % 20}` })) });

/** `clients` loops for `seconds` after `warmup`; returns the counted units/s and the refusals. */
async function run(clients: number, warmup: number, seconds: number, once: () => Promise<{ ok: boolean; units: number }>) {
  const counted = Date.now() + warmup * 1000;
  const until = counted + seconds * 1000;
  let units = 0;
  let refused = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        const r = await once().catch(() => ({ ok: false, units: 0 }));
        if (Date.now() < counted) continue;
        if (r.ok) units += r.units;
        else refused++;
      }
    }),
  );
  return { perSecond: units / seconds, refused };
}

if (!process.env.DATABASE_URL) {
  process.stdout.write('bench:ingest measures PostgreSQL: set DATABASE_URL\n');
  process.exit(0);
}
const name = `platform_bench_ingest_${process.pid}`;
const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
await admin.query(`drop database if exists ${name}`);
await admin.query(`create database ${name}`);
const server = await startServerProcess({ ...productionEnv, DATABASE_URL: databaseUrlFor(process.env.DATABASE_URL, name), LOG_LEVEL: 'warn', TRACKING_MAX_PENDING: String(MAX_PENDING) }, [process.execPath, 'dist/src/main.js']);
try {
  base = server.url;
  const suffix = randomUUID().slice(0, 8);
  const user = await must('POST', '/api/v2/auth/register', '', { email: `ingest-${suffix}@example.test`, password: 'correct horse battery staple', firstname: 'B', lastname: 'B' });
  const token = user.token as string;
  const company = await must('POST', '/api/v2/companies', token, { name: 'Ingest bench', subdomain: `ingest-${suffix}` });
  await must('POST', `/api/v2/auth/companies/${company.uuid}/select`, token);
  const { siteKey } = await must('POST', '/api/v2/tracking/site/key', token);
  const lead = await must('POST', '/api/v2/objects', token, { name: 'lead', label: 'Lead' });
  await must('POST', `/api/v2/objects/${lead.uuid}/properties`, token, { name: 'name', label: 'name', type: 'string', format: 'text' });
  const pid = server.child.pid!;
  await new Promise((r) => setTimeout(r, 1000));
  const idle = rssMiB(pid);

  process.stdout.write(`tracking: ${CONCURRENCY} senders, batches of ${BATCH}, ${SECONDS} s...\n`);
  const tracked = await run(CONCURRENCY, WARMUP, SECONDS, async () => {
    const r = await call('POST', '/api/v2/tracking/collect', '', batchOf(siteKey, BATCH));
    return { ok: r.status === 202, units: BATCH };
  });
  process.stdout.write(`record create: ${CONCURRENCY} clients, ${SECONDS} s...\n`);
  let n = 0;
  const records = await run(CONCURRENCY, WARMUP, SECONDS, async () => {
    const r = await call('POST', '/api/v2/lead', token, { properties: { name: `Lead ${n++}` } });
    return { ok: r.status === 201, units: 1 };
  });

  process.stdout.write(`burst: ${MAX_PENDING * 2} senders (twice the ${MAX_PENDING} batches held), ${BURST_SECONDS} s...\n`);
  await new Promise((r) => setTimeout(r, 2000));
  const idleBeforeBurst = rssMiB(pid);
  let peak = idleBeforeBurst;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
  const burst = await run(MAX_PENDING * 2, 0, BURST_SECONDS, async () => {
    const r = await call('POST', '/api/v2/tracking/collect', '', batchOf(siteKey, BATCH));
    return { ok: r.status === 202, units: BATCH };
  });
  clearInterval(sampler);
  const stats = await must('GET', '/api/v2/tracking/stats', token);

  const rows = [
    ['tracked events/s (16 senders x 50)', tracked.perSecond.toFixed(0), `${tracked.refused} refused`],
    ['record creates/s (16 clients)', records.perSecond.toFixed(0), `${records.refused} failed`],
    ['burst: tracked events/s accepted', burst.perSecond.toFixed(0), `${burst.refused} answered 429`],
    ['RSS idle (MiB, after setup)', idle.toFixed(0), ''],
    ['RSS before the burst (MiB)', idleBeforeBurst.toFixed(0), ''],
    ['RSS peak in the burst (MiB)', peak.toFixed(0), `+${(peak - idleBeforeBurst).toFixed(0)} MiB over before the burst`],
    ['page views counted (stats route)', String(stats.days.reduce((s: number, d: { views: number }) => s + d.views, 0)), ''],
  ];
  process.stdout.write('\n| figure | value | note |\n|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
} finally {
  server.child.kill('SIGTERM');
  await server.exited;
  await agent.close();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.close();
}
