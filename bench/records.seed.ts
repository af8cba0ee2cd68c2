/**
 * Seeds the records benchmark (a child process of bench/records.bench.ts): one tenant with one
 * object of BENCH_N records, plus BENCH_SMALL_TENANTS tenants of 1,000 records, all through the
 * command path (the records service: decider, append, inline projections). Prints one JSON line.
 * BENCH_SEED_BATCH (default 1): records per command; above 1, the records service's creations are
 * appended together (`handleCreations`, as a form submission does: the same events, history and
 * rows as one create each, one transaction per batch). BENCH_SEED_CONCURRENCY: commands in flight.
 */
import { randomUUID } from 'node:crypto';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPlatform } from '../src/platform.js';
import { makeRecordsService } from '../src/records/records.service.js';
import { handleCreations, type CommandContext } from '../src/commands/command-handler.js';
import { benchRecord, benchProperties, syllableWord } from './records.data.js';
import { compareProperties, compareRecord } from './compare.data.js';

const N = Number(process.env.BENCH_N ?? 100_000);
const SMALL = Number(process.env.BENCH_SMALL_TENANTS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_SEED_CONCURRENCY ?? 16);
const BATCH = Math.max(1, Number(process.env.BENCH_SEED_BATCH ?? 1));
// BENCH_DATA=compare: the ten-property object of bench:compare; BENCH_NO_VACUUM=1 leaves the statistics to the server.
const [properties, recordOf] = process.env.BENCH_DATA === 'compare' ? [compareProperties, compareRecord] : [benchProperties, benchRecord];

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10' });
const platform = await openPlatform(config);
const app = await buildApp({ config, db: platform.db, store: platform.store });
await app.ready();

async function call(method: 'POST' | 'PUT' | 'GET', url: string, token: string | null, payload?: unknown) {
  const res = await app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, payload: payload as Record<string, unknown> });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

/** A user with a company and the bench object, as the API sets them up. */
async function tenant(label: string) {
  const reg = await call('POST', '/api/v2/auth/register', null, { email: `${label}-${randomUUID().slice(0, 8)}@bench.test`, password: 'bench password 123', firstname: 'Bench', lastname: label });
  const company = await call('POST', '/api/v2/companies', reg.token, { name: `Bench ${label}`, subdomain: `bench-${randomUUID().slice(0, 8)}` });
  await call('POST', `/api/v2/auth/companies/${company.uuid}/select`, reg.token);
  const object = await call('POST', '/api/v2/objects', reg.token, { name: 'deal', label: 'Deal' });
  for (const p of properties) await call('POST', `/api/v2/objects/${object.uuid}/properties`, reg.token, p);
  return { token: reg.token as string, userUuid: reg.user.uuid as string, tenant: company.uuid as string };
}

const records = makeRecordsService({ db: platform.db, store: platform.store });

async function seed(t: { userUuid: string; tenant: string }, count: number, concurrency: number, sample?: string[], batch = 1) {
  let next = 0;
  let done = 0;
  let reported = 0;
  const started = Date.now();
  const step = Math.max(1, Math.floor(count / 20_000));
  const uuids: string[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const from = next;
        if (from >= count) return;
        const to = Math.min(count, from + batch);
        next = to;
        const ctx: CommandContext = { tenant: t.tenant, userUuid: t.userUuid, requestId: `seed-${from}`, now: Date.now() };
        if (batch === 1) {
          uuids[from] = (await records.create(ctx, 'deal', { properties: recordOf(from) })).uuid;
        } else {
          const made = await Promise.all(Array.from({ length: to - from }, (_, k) => records.creation(t.tenant, 'deal', { properties: recordOf(from + k) })));
          await handleCreations({ store: platform.store, context: ctx, writes: made.map((m) => m.write) });
          made.forEach((m, k) => (uuids[from + k] = m.uuid));
        }
        done += to - from;
        if (done - reported >= 100_000) {
          reported = done;
          process.stderr.write(`  seeded ${done.toLocaleString('en-US')} (${Math.round(done / ((Date.now() - started) / 1000))}/s)\n`);
        }
      }
    }),
  );
  if (sample) for (let i = 0; i < count; i += step) sample.push(uuids[i]!);
  return count / ((Date.now() - started) / 1000);
}

const main = await tenant('main');
const sample: string[] = [];
const importRate = await seed(main, N, CONCURRENCY, sample, BATCH);
for (let s = 0; s < SMALL; s++) await seed(await tenant(`small${s}`), 1000, Math.min(CONCURRENCY, 4));
if (!process.env.BENCH_NO_VACUUM) {
  await platform.db.query('vacuum analyze records');
  await platform.db.query('vacuum analyze record_values');
}
await app.close();
await platform.close();
process.stdout.write(`${JSON.stringify({ token: main.token, tenant: main.tenant, sample, importRate, word: syllableWord(7) })}\n`);
