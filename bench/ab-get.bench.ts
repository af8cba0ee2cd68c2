/**
 * `npm run bench:ab-get`: the server CPU per `GET /api/v2/{object}/{uuid}` of two checkouts of
 * this project, A and B, run side by side on the database a bench:compare run kept
 * (BENCH_KEEP=1 BENCH_DATABASE=<name>: its records and session). Both servers start at once
 * (`src/main.ts` of BENCH_A_DIR and BENCH_B_DIR, each from its own directory) and are driven in
 * turn in short bursts (BENCH_SECONDS, 2 s; BENCH_ROUNDS, 10; BENCH_CONCURRENCY, 16 clients;
 * each side first in every other round), after BENCH_WARMUP seconds (10) per side not counted.
 * On a machine others load, both sides then see the same load within a few seconds, which
 * bench:compare's minute-long runs do not. Prints each round's server CPU per request (from
 * /proc) and the medians of A, B and B / A (ADR 0012); an A / A run shows the bench's own bias.
 * BENCH_CPU_PROF=<dir>: B's server writes a V8 CPU profile there when it stops.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { Pool } from 'undici';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { databaseUrlFor } from '../test/support/pg-urls.js';
import { processCpuMs } from './proc-cpu.js';
import { productionEnv } from './server-env.js';

const DB = process.env.BENCH_DATABASE;
if (!DB) throw new Error('BENCH_DATABASE: the database a bench:compare run kept (BENCH_KEEP=1)');
const dirs = [process.env.BENCH_A_DIR ?? process.cwd(), process.env.BENCH_B_DIR ?? process.cwd()];
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const url = databaseUrlFor(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', DB);


const state = createPostgresDb({ connectionString: url, max: 1 });
const [row] = await state.query<{ state: { token: string; sample: string[] } }>('select state from bench_compare_state');
await state.close();
if (!row) throw new Error(`${DB} holds no bench_compare_state`);
const { token, sample } = row.state;

async function start(dir: string, flags: string[] = []): Promise<{ child: ChildProcess; pool: Pool }> {
  const port = await freePort();
  const env = { ...process.env, DATABASE_URL: url, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'error', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', INDEX_CACHE_ENTRIES: '0', ...productionEnv };
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', 'src/main.ts'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  for (let i = 0; i < 600; i++) {
    try {
      await (await pool.request({ method: 'GET', path: '/api/v2/health' })).body.dump();
      return { child, pool };
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${dir}: no answer`);
}

/** CONCURRENCY clients for `seconds`; the server's CPU ms per request, and requests/s. */
async function burst(side: { child: ChildProcess; pool: Pool }, seconds: number): Promise<{ cpu: number; rate: number }> {
  const cpu0 = processCpuMs(side.child.pid) ?? 0;
  const until = Date.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const uuid = sample[(n++ * 7919) % sample.length]!;
        const res = await side.pool.request({ method: 'GET', path: `/api/v2/deal/${uuid}`, headers: { authorization: `Bearer ${token}` } });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}`);
      }
    }),
  );
  return { cpu: ((processCpuMs(side.child.pid) ?? 0) - cpu0) / n, rate: n / seconds };
}

const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
const sides = [await start(dirs[0]!), await start(dirs[1]!, profile)];
try {
  for (const side of sides) await burst(side, WARMUP); // not counted: JIT, caches, pools
  const per: [number[], number[]] = [[], []];
  const rates: [number[], number[]] = [[], []];
  for (let r = 0; r < ROUNDS; r++) {
    // Each side goes first in every other round: the one after must not always meet a warmer (or busier) machine.
    const order = r % 2 ? [1, 0] : [0, 1];
    const got: { cpu: number; rate: number }[] = [];
    for (const s of order) got[s] = await burst(sides[s]!, SECONDS);
    const [a, b] = got.map((g) => g.cpu) as [number, number];
    per[0].push(a);
    per[1].push(b);
    rates[0].push(got[0]!.rate);
    rates[1].push(got[1]!.rate);
    process.stdout.write(`round ${r + 1}: A ${a.toFixed(3)} ms ${got[0]!.rate.toFixed(0)}/s, B ${b.toFixed(3)} ms ${got[1]!.rate.toFixed(0)}/s, B / A ${(b / a).toFixed(2)} (load ${(await import('node:os')).loadavg()[0]!.toFixed(1)})\n`);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const ratios = per[0].map((a, i) => per[1][i]! / a);
  process.stdout.write(`median server CPU per get: A ${median(per[0]).toFixed(3)} ms, B ${median(per[1]).toFixed(3)} ms; median B / A ${median(ratios).toFixed(2)}; median requests/s: A ${median(rates[0]).toFixed(0)}, B ${median(rates[1]).toFixed(0)}\n`);
} finally {
  for (const side of sides) {
    await side.pool.close();
    side.child.kill('SIGTERM');
  }
}
