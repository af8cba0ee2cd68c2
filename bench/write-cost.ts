/**
 * Where a record write's time goes in PostgreSQL (issue 15, item 3): `npx tsx bench/write-cost.ts`.
 * Not a test, not part of `npm run bench`.
 *
 * On a scratch database of its own (DATABASE_URL's server; dropped after unless COST_KEEP=1) it
 * seeds COST_SEED records of bench:compare's ten-property object through the records service at 16
 * clients, keeping the fused append statements the group commit sends (creates, and the first
 * 3-field update of COST_N seeded records, as bench:compare sends them). Then, on one connection
 * with `synchronous_commit = off` (no fsync in the figures), it replays them: per variant, in a
 * transaction that is rolled back, the creates of COST_N fresh copies of those records (their uuids
 * replaced) and then their updates, taking the CPU time of the backend (/proc: PostgreSQL on this
 * machine) they cost. The variants drop one index (or the
 * whole set of a table's pivot GINs) first, so each index's share is the difference from `all`.
 * COST_ROUNDS rounds, variants interleaved; the median per variant. With COST_EXPLAIN=1 it also
 * prints EXPLAIN ANALYZE of one create and one update statement. COST_UPDATE=numbers: updates of
 * two numbers instead of three fields.
 */
import { randomUUID } from 'node:crypto';
import { processCpuMs } from './proc-cpu.js';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPlatform } from '../src/platform.js';
import { makeRecordsService } from '../src/records/records.service.js';
import type { CommandContext } from '../src/commands/command-handler.js';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { compareProperties, compareRecord } from './compare.data.js';

const SEED = Number(process.env.COST_SEED ?? 5000);
const N = Number(process.env.COST_N ?? 1000);
const ROUNDS = Number(process.env.COST_ROUNDS ?? 3);
/** COST_UPDATE=numbers: the updates set two numbers only (bench:compare's BENCH_UPDATE=numbers). */
const NUMBERS = process.env.COST_UPDATE === 'numbers';
const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = `platform_write_cost_${process.pid}`;
const url = databaseUrlFor(BASE_URL, DB);
const say = (s: string) => process.stdout.write(`${s}\n`);

const admin = createPostgresDb({ connectionString: adminUrl(BASE_URL), max: 1 });
await admin.query(`drop database if exists ${DB} with (force)`);
await admin.query(`create database ${DB}`);

interface Captured { name: string; text: string; params: unknown[] }
const creates: Captured[] = [];
const updates: Captured[] = [];

try {
  const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10' });
  const platform = await openPlatform(config);
  const app = await buildApp({ config, db: platform.db, store: platform.store });
  await app.ready();
  const call = async (method: 'POST' | 'GET', path: string, token: string | null, payload?: unknown) => {
    const res = await app.inject({ method, url: path, headers: token ? { authorization: `Bearer ${token}` } : {}, payload: payload as Record<string, unknown> });
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  const reg = await call('POST', '/api/v2/auth/register', null, { email: `cost-${randomUUID().slice(0, 8)}@bench.test`, password: 'bench password 123', firstname: 'Bench', lastname: 'Cost' });
  const company = await call('POST', '/api/v2/companies', reg.token, { name: 'Bench cost', subdomain: `cost-${randomUUID().slice(0, 8)}` });
  await call('POST', `/api/v2/auth/companies/${company.uuid}/select`, reg.token);
  const object = await call('POST', '/api/v2/objects', reg.token, { name: 'deal', label: 'Deal' });
  for (const p of compareProperties) await call('POST', `/api/v2/objects/${object.uuid}/properties`, reg.token, p);

  // Keep the fused statements as the group commit sends them.
  const db = platform.db;
  const query = db.query.bind(db);
  let capture: Captured[] | null = null;
  (db as { query: typeof db.query }).query = (async (text: string, params?: unknown[], name?: string) => {
    if (capture && (name === 'append_with_record_creates' || name === 'append_with_record_updates')) (name.endsWith('creates') ? creates : updates).push({ name, text, params: params ?? [] });
    return query(text, params as never, name as never);
  }) as typeof db.query;

  const records = makeRecordsService({ db, store: platform.store });
  const ctx = (i: number): CommandContext => ({ tenant: company.uuid, userUuid: reg.user.uuid, requestId: `cost-${i}`, now: Date.now() });
  const uuids: string[] = [];
  let next = 0;
  capture = creates;
  await Promise.all(Array.from({ length: 16 }, async () => {
    for (let i = next++; i < SEED; i = next++) uuids[i] = (await records.create(ctx(i), 'deal', { properties: compareRecord(i) })).uuid;
  }));
  say(`seeded ${SEED} records: ${creates.length} create statements`);
  next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    for (let i = next++; i < N; i = next++) {
      const values = NUMBERS ? { amount: (i % 100_000) / 100 + 0.5, priority: (i + 1) % 5 } : { status: i % 3 ? 'active' : 'won', amount: (i % 100_000) / 100, city: `City ${i % 50}` };
      await records.update(ctx(SEED + i), uuids[i]!, values);
    }
  }));
  capture = null;
  say(`updated ${N} of them: ${updates.length} update statements`);
  await db.query('vacuum analyze records');
  await db.query('vacuum analyze record_values');
  await db.query('vacuum analyze events');
  await app.close();
  await platform.close();

  // The statements of the first N records: their creates and their updates, record uuids replaced per run.
  const wanted = new Set(uuids.slice(0, N));
  const uuidsIn = (c: Captured) => (JSON.parse(String(c.params[1])) as { uuid: string }[]).map((x) => x.uuid);
  const createSet = creates.filter((c) => uuidsIn(c).some((u) => wanted.has(u)));
  const updateSet = updates.filter((c) => uuidsIn(c).every((u) => wanted.has(u)));
  const recordsOf = (set: Captured[]) => set.reduce((n, c) => n + uuidsIn(c).length, 0);
  say(`replaying ${createSet.length} create statements (${recordsOf(createSet)} records) and ${updateSet.length} update statements (${recordsOf(updateSet)} records)`);
  const remap = (c: Captured, fresh: Map<string, string>): unknown[] =>
    c.params.map((p) => String(p).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (u) => (wanted.has(u) ? (fresh.get(u) ?? fresh.set(u, randomUUID()).get(u)!) : u)));

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('set synchronous_commit = off');
  await client.query('set jit = off');
  const variants: [string, string[]][] = [
    ['all indexes', []],
    ['- record_values_grams (gram GIN, 0019; gone since 0022)', ['record_values_grams']],
    ['- record_values_tf (trigram GIN)', ['record_values_tf']],
    ['- record_values_t (btree)', ['record_values_t']],
    ['- record_values_n (btree)', ['record_values_n']],
    ['- records_search_scoped (tsvector GIN)', ['records_search_scoped']],
    ['- records_created (btree)', ['records_created']],
    ['- events_request_id (btree)', ['events_request_id']],
    ['- events_tenant_time (btree)', ['events_tenant_time']],
    ['- events_correlation_other (partial btree)', ['events_correlation_other']],
    ['- every index above', ['record_values_grams', 'record_values_tf', 'record_values_t', 'record_values_n', 'records_search_scoped', 'records_created', 'events_request_id', 'events_tenant_time', 'events_correlation_other']],
  ];
  if (process.env.COST_ONLY) variants.splice(0, variants.length, ...variants.filter(([v]) => v.includes(process.env.COST_ONLY!)));
  const times = new Map<string, { create: number[]; update: number[] }>(variants.map(([v]) => [v, { create: [], update: [] }]));
  // The backend's CPU time (utime + stime, in clock ticks of 10 ms): what the statements cost
  // PostgreSQL whatever else the machine runs, unlike their wall time.
  const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid as number;
  const cpuMs = () => processCpuMs(pid) ?? 0;
  const run = async (set: Captured[], fresh: Map<string, string>) => {
    const t0 = cpuMs();
    for (const c of set) {
      const [row] = (await client.query({ text: c.text, values: remap(c, fresh), name: c.name })).rows as { appended: unknown[]; checked: number }[];
      if (!row || row.appended.length === 0) throw new Error(`${c.name} appended nothing`);
    }
    return cpuMs() - t0;
  };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [label, drop] of variants) {
      await client.query('begin');
      for (const ix of drop) await client.query(`drop index if exists ${ix}`);
      const fresh = new Map<string, string>();
      const c = await run(createSet, fresh);
      const u = await run(updateSet, fresh);
      await client.query('rollback');
      times.get(label)!.create.push((c * 1000) / recordsOf(createSet));
      times.get(label)!.update.push((u * 1000) / recordsOf(updateSet));
    }
    say(`round ${r + 1} done`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = times.get('all indexes')!;
  if (ROUNDS > 0) say('\nvariant | create: PostgreSQL CPU µs/record | saved | update: µs/record | saved');
  for (const [label] of ROUNDS > 0 ? variants : []) {
    const t = times.get(label)!;
    const c = median(t.create);
    const u = median(t.update);
    say(`${label} | ${c.toFixed(0)} | ${(median(base.create) - c).toFixed(0)} | ${u.toFixed(0)} | ${(median(base.update) - u).toFixed(0)}`);
  }
  const plans = await client.query('select name, generic_plans, custom_plans from pg_prepared_statements');
  for (const p of plans.rows) say(`plan cache: ${p.name}: ${p.generic_plans} generic, ${p.custom_plans} custom plans`);
  if (process.env.COST_PLANS) {
    // The plan cache's choice: a generic plan's estimated cost against a custom plan's (which is planned on every execution).
    for (const set of [createSet, updateSet]) {
      const c = set[Math.floor(set.length / 2)]!;
      await client.query(`prepare y(text, text) as ${c.text}`);
      const args = remap(c, new Map()).map((p) => client.escapeLiteral(String(p))).join(', ');
      for (const mode of ['force_generic_plan', 'force_custom_plan']) {
        await client.query(`set plan_cache_mode = ${mode}`);
        const { rows } = await client.query(`explain execute y(${args})`);
        say(`${c.name} ${mode}: ${rows[0]['QUERY PLAN']}`);
      }
      await client.query('reset plan_cache_mode');
      await client.query('deallocate y');
    }
  }
  if (process.env.COST_EXPLAIN) {
    for (const set of [createSet, updateSet]) {
      await client.query('begin');
      const fresh = new Map<string, string>();
      if (set === updateSet) for (const c of createSet) await client.query({ text: c.text, values: remap(c, fresh), name: c.name });
      const c = set[Math.floor(set.length / 2)]!;
      const params = remap(c, fresh);
      await client.query(`prepare x(text, text) as ${c.text}`);
      const { rows } = await client.query(`explain (analyze, buffers, costs off) execute x(${params.map((p) => client.escapeLiteral(String(p))).join(', ')})`);
      say(`\nEXPLAIN ANALYZE, ${c.name}, ${uuidsIn(c).length} records:\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
      await client.query('rollback');
      await client.query('deallocate x');
    }
  }
  await client.end();
} finally {
  if (!process.env.COST_KEEP) await admin.query(`drop database if exists ${DB} with (force)`);
  await admin.close();
}
