/**
 * `npm run bench:import`: `platform records import` of BENCH_IMPORT_ROWS rows (default 100,000)
 * from a CSV file, on PostgreSQL (DATABASE_URL; a fresh database, dropped after) or, without it,
 * PGlite. The server runs as its own process; the CLI runs as another (`node --import tsx
 * cli/main.ts`). First the reference in the same run: the records bench's create figure (POST
 * /api/v2/deal at concurrency BENCH_CONCURRENCY, default 16, for BENCH_SECONDS, default 10, on
 * the same server), then the import at the same concurrency. Prints both rates and their ratio;
 * not a test.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { stringify } from 'csv-stringify';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { root, startServerProcess } from '../test/support/server-process.js';
import { benchProperties, benchRecord } from './records.data.js';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const run = promisify(execFile);
const agent = new Agent({ connections: CONCURRENCY * 2 });

async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(`${base}${path}`, {
    method: method as 'POST',
    dispatcher: agent,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const json = (await res.body.json()) as { data: any };
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${JSON.stringify(json)}`);
  return json.data;
}

/** The records bench's create figure: creates at CONCURRENCY for SECONDS. */
async function createRate(base: string, token: string): Promise<number> {
  let done = 0;
  let i = 50_000_000;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    [...Array(CONCURRENCY)].map(async () => {
      while (Date.now() < until) {
        await call(base, 'POST', '/api/v2/deal', token, { properties: benchRecord(i++) });
        done++;
      }
    }),
  );
  return done / SECONDS;
}

async function bench(label: string, env: Record<string, string>, dir: string) {
  process.stdout.write(`\n${label}: ${ROWS.toLocaleString('en-US')} rows, concurrency ${CONCURRENCY}\n`);
  const server = await startServerProcess({ PASSWORD_SCRYPT_LOG_N: '10', LOG_LEVEL: 'warn', ...env });
  try {
    const email = `bench-${Date.now()}@example.test`;
    const password = 'correct horse battery staple';
    const reg = await call(server.url, 'POST', '/api/v2/auth/register', undefined, { email, password, firstname: 'Bench', lastname: 'Import' });
    const company = await call(server.url, 'POST', '/api/v2/companies', reg.token, { name: 'Import bench', subdomain: `import-${Date.now()}` });
    await call(server.url, 'POST', `/api/v2/auth/companies/${company.uuid}/select`, reg.token);
    const object = await call(server.url, 'POST', '/api/v2/objects', reg.token, { name: 'deal', label: 'Deal' });
    for (const p of benchProperties) await call(server.url, 'POST', `/api/v2/objects/${object.uuid}/properties`, reg.token, p);

    const file = join(dir, 'deals.csv');
    const csv = stringify({ header: true, columns: benchProperties.map((p) => p.name) });
    const out = createWriteStream(file);
    csv.pipe(out);
    for (let i = 0; i < ROWS; i++) {
      const r = benchRecord(i);
      if (!csv.write(benchProperties.map((p) => String(r[p.name] ?? '')))) await once(csv, 'drain');
    }
    csv.end();
    await once(out, 'finish');

    const reference = await createRate(server.url, reg.token);
    process.stdout.write(`  reference (records bench create, same server): ${Math.round(reference)} records/s\n`);

    const cliEnv = { ...process.env, PLATFORM_CONFIG: join(dir, 'config.json'), PLATFORM_URL: server.url, PLATFORM_TOKEN: reg.token, PLATFORM_COMPANY: '' };
    const started = Date.now();
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'records', 'import', 'deal', file, '--concurrency', String(CONCURRENCY)], { cwd: root, env: cliEnv, maxBuffer: 64 * 1024 * 1024 });
    const wall = (Date.now() - started) / 1000;
    process.stdout.write(`  ${stdout.split('\n')[0]}\n`);
    const rate = Number(/\((\d+) rows\/s\)/.exec(stdout)?.[1] ?? 0);
    process.stdout.write(`  platform records import: ${rate} rows/s (${wall.toFixed(1)} s with the CLI's start); ratio to the create reference: ${(rate / reference).toFixed(2)}\n`);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'platform-bench-import-'));
try {
  if (process.env.DATABASE_URL) {
    const name = `platform_bench_import_${process.pid}`;
    const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
    await admin.query(`create database ${name}`);
    try {
      await bench('PostgreSQL', { DATABASE_URL: databaseUrlFor(process.env.DATABASE_URL, name) }, dir);
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    }
  } else {
    await bench('PGlite (set DATABASE_URL for PostgreSQL)', { DATA_DIR: join(dir, 'data') }, dir);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await agent.close();
}
