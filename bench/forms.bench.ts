/**
 * `npm run bench:forms`: public form submissions under load. For PostgreSQL when DATABASE_URL is
 * set (and PGlite unless BENCH_ONLY=postgres): starts the server as its own process on a fresh
 * database, sets up one company through the API (a lead object, a contact object, a relation
 * between them, a published form asking two lead properties with lead scoring and an inner form
 * of one contact), then measures for BENCH_SECONDS after BENCH_WARMUP seconds not counted, at
 * BENCH_CONCURRENCY (16) visitors:
 * - public submissions (each: one lead record, one contact record, their connection and the
 *   FormSubmissionEvent, in one command);
 * - a record create through the API beside it (one record), as the reference in the same run.
 * Beside req/s (which a loaded machine bends), each figure gives the CPU time per request: the
 * server process and, on PostgreSQL, the bench database's backends (read from /proc, Linux only).
 * The per-address rate limit is off for the run (every visitor is 127.0.0.1). Prints a table; not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { benchHttp, type Req } from './bench-http.js';
import { processesCpuMs } from './proc-cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ONLY = process.env.BENCH_ONLY; // 'pglite' | 'postgres'
const PORT = 3990 + (process.pid % 9);

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
async function cpuNow() {
  const p = await cpuPids();
  return { pids: p, server: processesCpuMs(p.server), db: processesCpuMs(p.db) };
}

/** CONCURRENCY clients for SECONDS after WARMUP; client k sends next(k) one request after another. */
async function measure(label: string, token: string, next: (client: number) => Req, after?: (client: number, body: any) => void): Promise<Figure> {
  const counted = Date.now() + WARMUP * 1000;
  const until = counted + SECONDS * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let cpuStart: Promise<Awaited<ReturnType<typeof cpuNow>>> | undefined;
  const warm = setTimeout(() => (cpuStart = cpuNow()), WARMUP * 1000);
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
  const begin = await cpuStart;
  // The same processes at both ends (a backend that left is counted up to its last reading).
  const cpuServer = begin ? (processesCpuMs(begin.pids.server) - begin.server) / Math.max(1, latencies.length) : 0;
  const cpuDb = begin ? (processesCpuMs(begin.pids.db) - begin.db) / Math.max(1, latencies.length) : 0;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { label, rps: latencies.length / ((Date.now() - counted) / 1000), p50: q(0.5), p99: q(0.99), errors, cpuServer, cpuDb };
}

async function bench(label: string, env: Record<string, string>, backends: () => Promise<number[]> = async () => []) {
  process.stdout.write(`\n${label}: setting up...\n`);
  const server = await startServer({ ...env, FORMS_RATE_LIMIT_MAX: '0' }, (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean));
  cpuPids = async () => ({ server: server.pid ? [server.pid] : [], db: await backends() });
  try {
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const user = await must({ method: 'POST', path: '/api/v2/auth/register', body: { email: `forms-${suffix}@example.test`, password: 'correct horse battery staple', firstname: 'B', lastname: 'B' } }, '');
    const token: string = user.token;
    const company = await must({ method: 'POST', path: '/api/v2/companies', body: { name: 'Forms bench', subdomain: `forms-${suffix}` } }, token);
    await must({ method: 'POST', path: `/api/v2/auth/companies/${company.uuid}/select` }, token);
    const lead = await must({ method: 'POST', path: '/api/v2/objects', body: { name: 'lead', label: 'Lead' } }, token);
    const contact = await must({ method: 'POST', path: '/api/v2/objects', body: { name: 'contact', label: 'Contact' } }, token);
    for (const [o, name, type, format] of [[lead, 'name', 'string', 'text'], [lead, 'email', 'string', 'email'], [lead, 'score', 'number', 'number'], [contact, 'fullname', 'string', 'text']] as const) {
      await must({ method: 'POST', path: `/api/v2/objects/${o.uuid}/properties`, body: { name, label: name, type, format } }, token);
    }
    const relation = await must({ method: 'POST', path: `/api/v2/relations/${lead.uuid}`, body: { name: 'contacts', toObjectUuid: contact.uuid, cardinality: 'MANY_TO_MANY' } }, token);
    const form = await must({
      method: 'POST',
      path: '/api/v2/forms',
      body: {
        name: 'bench', objectUuid: lead.uuid, published: true,
        items: [
          { kind: 'property', property: 'name', row: 0, column: 0, width: 6, required: true },
          { kind: 'property', property: 'email', row: 0, column: 6, width: 6 },
          { id: 'contact', kind: 'innerForm', relationUuid: relation.uuid, row: 1, column: 0, width: 12, fields: [{ property: 'fullname', required: true }], minEntries: 1, maxEntries: 1 },
        ],
        scoring: { property: 'score', rules: [{ property: 'email', operator: 'contains', value: '@corp.', points: 10 }] },
      },
    }, token);
    let n = 0;
    const figures: Figure[] = [];
    figures.push(await measure(`public submissions (2 records + 1 relation each), ${CONCURRENCY} visitors`, '', () => {
      n += 1;
      return { method: 'POST', path: `/api/v2/forms/public/${company.uuid}/${form.uuid}/submit`, body: { answers: { name: `Visitor ${n}`, email: `v${n}@corp.example` }, inner: { contact: [{ fullname: `Contact ${n}` }] } } };
    }));
    figures.push(await measure(`record create (1 record, reference), ${CONCURRENCY} clients`, token, () => ({ method: 'POST', path: '/api/v2/lead', body: { properties: { name: `Direct ${n++}` } } })));
    const width = Math.max(...figures.map((f) => f.label.length));
    process.stdout.write(`  ${'operation'.padEnd(width)}  ${'req/s'.padStart(8)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}  ${'CPU ms/req (server + db)'.padStart(24)}  errors\n`);
    for (const f of figures) {
      const cpu = `${(f.cpuServer + f.cpuDb).toFixed(2)} (${f.cpuServer.toFixed(2)} + ${f.cpuDb.toFixed(2)})`;
      process.stdout.write(`  ${f.label.padEnd(width)}  ${Math.round(f.rps).toString().padStart(8)}  ${f.p50.toFixed(1).padStart(8)}  ${f.p99.toFixed(1).padStart(8)}  ${cpu.padStart(24)}  ${f.errors}\n`);
    }
    const [sub, ref] = [figures[0]!, figures[1]!];
    process.stdout.write(`  submissions / record creates: ${(sub.rps / ref.rps).toFixed(2)} (same run, same server)\n`);
    process.stdout.write(`  CPU per submission / per record create: ${((sub.cpuServer + sub.cpuDb) / Math.max(0.001, ref.cpuServer + ref.cpuDb)).toFixed(2)}\n`);
    process.stdout.write(`  concurrency ${CONCURRENCY}, ${SECONDS} s per figure after ${WARMUP} s of warm-up\n`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

if (ONLY !== 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-forms-'));
  try {
    await bench('PGlite (in the server process)', { DATA_DIR: dir, DATABASE_URL: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ONLY !== 'pglite') {
  if (!process.env.DATABASE_URL) process.stdout.write('\nPostgreSQL: skipped (set DATABASE_URL to measure it)\n');
  else {
    const name = `platform_bench_forms_${process.pid}`;
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
