/**
 * `npm run bench:functions`: app function invocations under load. Starts the server as its own
 * process on a fresh PGlite folder (and on PostgreSQL when DATABASE_URL is set, unless
 * BENCH_ONLY=pglite), sets up a company, an object with one record and a private app (installed
 * for its company) deployed with two functions, then measures for BENCH_SECONDS after
 * BENCH_WARMUP seconds, at BENCH_CONCURRENCY (16) callers:
 * - a trivial function (`POST .../functions/trivial/invoke`: returns its input);
 * - a function that reads the record through the host API (`ctx.records.get`);
 * - a record GET through the API beside them, as the reference in the same run.
 * Prints invocations/s, p50 and p99, and the CPU time per request of the server process (the
 * sandbox workers are threads of it). The target: at least 500 trivial invocations/s.
 * Not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { benchHttp, type Req } from './bench-http.js';
import { processesCpuMs } from './proc-cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ONLY = process.env.BENCH_ONLY; // 'pglite' | 'postgres'
const PORT = 4090 + (process.pid % 9);

const { request, must, startServer, close } = benchHttp(PORT, CONCURRENCY);

interface Figure {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuServer: number;
}

async function measure(label: string, token: string, pid: number | undefined, next: () => Req, ok: (body: any) => boolean = () => true): Promise<Figure> {
  const counted = Date.now() + WARMUP * 1000;
  const until = counted + SECONDS * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let cpuStart: number | undefined;
  const warm = setTimeout(() => (cpuStart = pid ? processesCpuMs([pid]) : 0), WARMUP * 1000);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const t0 = process.hrtime.bigint();
        const res = await request(next(), token);
        if (res.status >= 300 || !ok(res.body)) errors++;
        if (Date.now() >= counted) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  clearTimeout(warm);
  const cpuServer = pid && cpuStart !== undefined ? (processesCpuMs([pid]) - cpuStart) / Math.max(1, latencies.length) : 0;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { label, rps: latencies.length / ((Date.now() - counted) / 1000), p50: q(0.5), p99: q(0.99), errors, cpuServer };
}

const BUNDLE = `
exports.trivial = (input) => input;
exports.readRecord = async (input, ctx) => (await ctx.records.get(input.uuid)).properties.name;
`;

async function bench(label: string, env: Record<string, string>) {
  process.stdout.write(`\n${label}: setting up...\n`);
  const server = await startServer(env);
  try {
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const user = await must({ method: 'POST', path: '/api/v2/auth/register', body: { email: `fn-${suffix}@example.test`, password: 'correct horse battery staple', firstname: 'B', lastname: 'B' } }, '');
    const token: string = user.token;
    const company = await must({ method: 'POST', path: '/api/v2/companies', body: { name: 'Functions bench', subdomain: `fn-${suffix}` } }, token);
    await must({ method: 'POST', path: `/api/v2/auth/companies/${company.uuid}/select` }, token);
    const object = await must({ method: 'POST', path: '/api/v2/objects', body: { name: 'note', label: 'Note' } }, token);
    await must({ method: 'POST', path: `/api/v2/objects/${object.uuid}/properties`, body: { name: 'name', label: 'Name', type: 'string', format: 'text' } }, token);
    const record = await must({ method: 'POST', path: '/api/v2/note', body: { properties: { name: 'the record' } } }, token);
    const app = await must({ method: 'POST', path: '/api/v2/apps/private', body: { label: 'Bench app' } }, token);
    await must({ method: 'POST', path: `/api/v2/apps/${app.uuid}/deploys`, body: { manifest: { functions: [{ name: 'trivial' }, { name: 'readRecord' }], scopes: ['records:read'] }, code: BUNDLE } }, token);
    const invoke = (name: string, input: unknown): Req => ({ method: 'POST', path: `/api/v2/apps/${app.uuid}/installation/functions/${name}/invoke`, body: { input } });
    const succeeded = (b: any) => b?.data?.status === 'SUCCEEDED';
    const figures: Figure[] = [];
    figures.push(await measure(`trivial function, ${CONCURRENCY} callers`, token, server.pid, () => invoke('trivial', { n: 1 }), succeeded));
    figures.push(await measure(`function reading a record, ${CONCURRENCY} callers`, token, server.pid, () => invoke('readRecord', { uuid: record.uuid }), (b) => succeeded(b) && b.data.result === 'the record'));
    figures.push(await measure(`record GET (reference), ${CONCURRENCY} callers`, token, server.pid, () => ({ method: 'GET', path: `/api/v2/note/${record.uuid}` })));
    const width = Math.max(...figures.map((f) => f.label.length));
    process.stdout.write(`  ${'operation'.padEnd(width)}  ${'req/s'.padStart(8)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}  ${'server CPU ms/req'.padStart(18)}  errors\n`);
    for (const f of figures) {
      process.stdout.write(`  ${f.label.padEnd(width)}  ${Math.round(f.rps).toString().padStart(8)}  ${f.p50.toFixed(1).padStart(8)}  ${f.p99.toFixed(1).padStart(8)}  ${f.cpuServer.toFixed(2).padStart(18)}  ${f.errors}\n`);
    }
    process.stdout.write(`  trivial invocations / record GETs: ${(figures[0]!.rps / figures[2]!.rps).toFixed(2)} (same run, same server); target >= 500 trivial invocations/s: ${figures[0]!.rps >= 500 ? 'met' : 'NOT met'}\n`);
    process.stdout.write(`  concurrency ${CONCURRENCY}, ${SECONDS} s per figure after ${WARMUP} s of warm-up, APPS_FUNCTION_WORKERS ${env.APPS_FUNCTION_WORKERS ?? 'default (2)'}\n`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

const workers: Record<string, string> = process.env.APPS_FUNCTION_WORKERS ? { APPS_FUNCTION_WORKERS: process.env.APPS_FUNCTION_WORKERS } : {};
if (ONLY !== 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-functions-'));
  try {
    await bench('PGlite (in the server process)', { DATA_DIR: dir, DATABASE_URL: '', ...workers });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ONLY !== 'pglite') {
  if (!process.env.DATABASE_URL) process.stdout.write('\nPostgreSQL: skipped (set DATABASE_URL to measure it)\n');
  else {
    const name = `platform_bench_functions_${process.pid}`;
    const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    try {
      await bench('PostgreSQL', { DATABASE_URL: databaseUrlFor(process.env.DATABASE_URL, name), ...workers });
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  }
}
close();
