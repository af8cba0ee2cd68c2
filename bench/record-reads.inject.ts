/**
 * `DATABASE_URL=<server> BENCH_DATABASE=<a kept bench:compare database> npx tsx bench/record-reads.inject.ts`:
 * the server process's own CPU per read request, in process (`app.inject`, BENCH_INFLIGHT
 * requests in flight, default 4; no sockets, no clients): bench:compare's free text, filtered list
 * page 1 and get by uuid on its kept database (`BENCH_KEEP=1`), result cache off, BENCH_REQS
 * requests each (default 2,000) after 200 not counted. Run it from two checkouts in turn (A B A B)
 * to compare their code; the database's CPU is not counted.
 */
import type { InjectOptions } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPlatform } from '../src/platform.js';
import { syllableWord } from './records.data.js';

const REQS = Number(process.env.BENCH_REQS ?? 2_000);
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 4);
const url = new URL(process.env.DATABASE_URL!);
url.pathname = `/${process.env.BENCH_DATABASE}`;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const config = loadConfig({ ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', INDEX_CACHE_ENTRIES: '0' });
const platform = await openPlatform(config);
const app = await buildApp({ config, db: platform.db, store: platform.store });
await app.ready();
const [row] = await platform.db.query<{ state: { token: string; sample: string[] } }>('select state from bench_compare_state');
const { token, sample } = row!.state;
const headers = { authorization: `Bearer ${token}` };
const ops: [string, (i: number) => InjectOptions][] = [
  ['free text (one word)', (i) => ({ method: 'POST', url: '/api/v2/deal/index', headers, payload: { query: syllableWord(11 + (i % 5)), limit: 25 } })],
  ['filtered list page 1', () => ({ method: 'POST', url: '/api/v2/deal/index', headers, payload: { filters: [{ key: 'name', operator: 'contains', value: 'ru' }, { key: 'status', operator: 'equals', value: 'active' }], sort: [{ key: 'due', direction: 'desc' }], limit: 25 } })],
  ['get by uuid', (i) => ({ method: 'GET', url: `/api/v2/deal/${sample[(i * 7919) % sample.length]}`, headers })],
];

async function run(make: (i: number) => InjectOptions, n: number) {
  let next = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < n) {
      const res = await app.inject(make(next++));
      if (res.statusCode !== 200) throw new Error(`${res.statusCode}: ${res.body}`);
      bytes += res.rawPayload.length;
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  return bytes / n;
}

for (const [label, make] of ops) {
  await run(make, 200);
  const start = cpu();
  const bytes = await run(make, REQS);
  process.stdout.write(`${label}: ${(((cpu() - start) * 1000) / REQS).toFixed(0)} µs of the server's CPU a request (${Math.round(bytes)} bytes)\n`);
}
await app.close();
await platform.close();
