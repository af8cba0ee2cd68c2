/**
 * `npm run bench:start`: how long `npm start`'s server takes to answer its health route, from the
 * process's spawn: a first start (an empty data folder / a new PostgreSQL database) and a restart
 * on the same data, on PGlite and, when DATABASE_URL is set, on PostgreSQL. Runs the build first
 * (as `npm ci` does). BENCH_RUNS sets the runs per figure (default 3); BENCH_ONLY=pglite|postgres
 * runs one. Prints a table; not a test. Figures: docs/operations.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';

const root = resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const only = process.env.BENCH_ONLY;
const PORT = 3900 + Math.floor(Math.random() * 90);

/** Spawns the built server, polls its health route; resolves with the ms until 200, then stops it. */
async function timeStart(env: Record<string, string>): Promise<number> {
  const full = { ...process.env, PORT: String(PORT), LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_MS: '0', ...env } as NodeJS.ProcessEnv;
  if (!env.DATABASE_URL) delete full.DATABASE_URL;
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: root, env: full, stdio: 'ignore' });
  const exited = new Promise((ok) => child.on('exit', ok));
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${PORT}/api/v2/health`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 180_000) throw new Error('no health within 180 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) => `${Math.round(median(xs))} ms (${xs.map((x) => Math.round(x)).join(', ')})`;

async function pglite() {
  const first: number[] = [];
  const again: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'platform-bench-start-'));
    try {
      first.push(await timeStart({ DATA_DIR: dir }));
      again.push(await timeStart({ DATA_DIR: dir }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { first, again };
}

async function postgres(url: string) {
  const admin = createPostgresDb({ connectionString: adminUrl(url), max: 1 });
  const first: number[] = [];
  const again: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const name = `platform_bench_start_${process.pid}_${i}`;
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`create database ${name}`);
      try {
        first.push(await timeStart({ DATABASE_URL: databaseUrlFor(url, name) }));
        again.push(await timeStart({ DATABASE_URL: databaseUrlFor(url, name) }));
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
      }
    }
  } finally {
    await admin.close();
  }
  return { first, again };
}

execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
process.stdout.write(`start to health 200, ${RUNS} runs each (median, then each run); ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
process.stdout.write('| database | first start | restart |\n|---|---:|---:|\n');
if (only !== 'postgres') {
  const r = await pglite();
  process.stdout.write(`| PGlite | ${fmt(r.first)} | ${fmt(r.again)} |\n`);
}
if (only !== 'pglite' && process.env.DATABASE_URL) {
  const r = await postgres(process.env.DATABASE_URL);
  process.stdout.write(`| PostgreSQL | ${fmt(r.first)} | ${fmt(r.again)} |\n`);
}
