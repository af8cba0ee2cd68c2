/**
 * `npm run bench:history`: what the history and asOf of a resource cost (docs/history.md). On
 * PGlite, and on PostgreSQL when DATABASE_URL is set (a fresh database, dropped after): the app
 * in process (`inject`, no sockets), one company, one saved filter and one form with
 * BENCH_EVENTS events each (default 1,000: far more than such a resource gathers), then
 * BENCH_REQUESTS (default 200) single requests, one at a time, of each:
 * the current GET, GET ?asOf=<a revision in the middle>, ?asOf=<a time in the middle>, and the
 * history's first and last page (limit 20). Prints p50 / p99 in ms. Not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { openPlatform } from '../src/platform.js';
import { signUpWithCompany } from '../test/support/actors.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);

type Headers = Record<string, string>;

async function must(app: FastifyInstance, method: 'GET' | 'POST' | 'PUT', url: string, headers: Headers, payload?: unknown) {
  const res = await app.inject({ method, url, headers, payload: payload as Record<string, unknown> | undefined });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function timed(app: FastifyInstance, url: string, headers: Headers) {
  const ms: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const at = performance.now();
    const res = await app.inject({ method: 'GET', url, headers });
    ms.push(performance.now() - at);
    if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${res.body}`);
  }
  ms.sort((a, b) => a - b);
  return { p50: pct(ms, 50), p99: pct(ms, 99) };
}

async function run(label: string, env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-history-'));
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false', DATA_DIR: dataDir, ...env });
  const platform = await openPlatform(config);
  const app = await buildApp({ config, db: platform.db, store: platform.store });
  await app.ready();
  try {
    const { headers } = await signUpWithCompany(app);
    const object = await must(app, 'POST', '/api/v2/objects', headers, { name: `ticket_${randomBytes(3).toString('hex')}`, label: 'Ticket' });
    await must(app, 'POST', `/api/v2/objects/${object.uuid}/properties`, headers, { name: 'title', label: 'Title', type: 'string', format: 'text' });
    const filter = await must(app, 'POST', '/api/v2/filters', headers, { name: 'n0', objectName: object.name, filters: [] });
    const view = await must(app, 'POST', '/api/v2/views', headers, { name: 'n0', objectUuid: object.uuid, columns: [{ key: 'title' }] });
    const started = performance.now();
    let middle = 0;
    for (let i = 1; i < EVENTS; i++) {
      await must(app, 'PUT', `/api/v2/filters/${filter.uuid}`, headers, { name: `n${i}` });
      await must(app, 'PUT', `/api/v2/views/${view.uuid}`, headers, { name: `n${i}` });
      if (i === Math.floor(EVENTS / 2)) middle = Date.now();
    }
    const writeMs = performance.now() - started;
    const rows: [string, { p50: number; p99: number }][] = [];
    for (const [kind, base] of [['saved filter', `/api/v2/filters/${filter.uuid}`], ['view', `/api/v2/views/${view.uuid}`]] as const) {
      rows.push([`${kind}: GET (current)`, await timed(app, base, headers)]);
      rows.push([`${kind}: GET ?asOf=<revision ${Math.floor(EVENTS / 2)}>`, await timed(app, `${base}?asOf=${Math.floor(EVENTS / 2)}`, headers)]);
      rows.push([`${kind}: GET ?asOf=<time in the middle>`, await timed(app, `${base}?asOf=${new Date(middle).toISOString()}`, headers)]);
      rows.push([`${kind}: history, newest page (limit 20)`, await timed(app, `${base}/history?limit=20`, headers)]);
      rows.push([`${kind}: history, oldest page (limit 20)`, await timed(app, `${base}/history?limit=20&page=${Math.ceil(EVENTS / 20) - 1}`, headers)]);
    }
    console.log(`\n${label}: ${EVENTS} events per resource (written in ${(writeMs / 1000).toFixed(1)} s), ${REQUESTS} requests each, one at a time`);
    console.log('| request | p50 ms | p99 ms |\n|---|---|---|');
    for (const [name, f] of rows) console.log(`| ${name} | ${f.p50.toFixed(2)} | ${f.p99.toFixed(2)} |`);
  } finally {
    await app.close();
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await run('PGlite', {});
if (process.env.DATABASE_URL) {
  const name = `bench_history_${randomBytes(4).toString('hex')}`;
  const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
  await admin.query(`create database ${name}`);
  try {
    await run('PostgreSQL', { DATABASE_URL: databaseUrlFor(process.env.DATABASE_URL, name) });
  } finally {
    await admin.query(`drop database ${name} with (force)`);
    await admin.close();
  }
}
