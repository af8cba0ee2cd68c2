/**
 * Time travel (issue 38): `npm run bench:timetravel`. Not a test.
 *
 * On a scratch PostgreSQL database of its own (DATABASE_URL's server; dropped after unless
 * TT_KEEP=1): one company, one object of TT_N records (default 100,000) written through the
 * records service (creates in batches, then TT_UPDATES_PER updates each on average, default 2:
 * 3 x N events), then, in the same run:
 *
 * - a current list (a filtered, sorted page) and the same request with `asOf` at a random past
 *   time (and a random past position), TT_ASKS each: p50 and p99 (the first asOf request, which
 *   reads the object's timeline from the log, is printed apart);
 * - what the design costs a record write: TT_WRITES updates at 16 clients with no timeline held,
 *   then the same with the object's timeline held and an asOf list every 100 writes (its
 *   catch-up reads what was written since), rounds interleaved;
 * - the live feed: one client catching up from position 0 over GET /api/v2/events/stream, on a
 *   real loopback server: events/s.
 */
import { randomUUID } from 'node:crypto';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPlatform } from '../src/platform.js';
import { makeRecordsService } from '../src/records/records.service.js';
import { handleCreations, type CommandContext } from '../src/commands/command-handler.js';
import { asOfStats, configureAsOf } from '../read-models/record-index/index.js';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';
import { benchProperties, benchRecord, mix } from './records.data.js';

const N = Number(process.env.TT_N ?? 100_000);
const UPDATES_PER = Number(process.env.TT_UPDATES_PER ?? 2);
const ASKS = Number(process.env.TT_ASKS ?? 60);
const WRITES = Number(process.env.TT_WRITES ?? 2000);
const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = `platform_timetravel_${process.pid}`;
const url = databaseUrlFor(BASE_URL, DB);
const say = (s: string) => process.stdout.write(`${s}\n`);
const ms = (n: number) => `${n.toFixed(1)} ms`;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const admin = createPostgresDb({ connectionString: adminUrl(BASE_URL), max: 1 });
await admin.query(`drop database if exists ${DB} with (force)`);
await admin.query(`create database ${DB}`);

try {
  const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', REACTORS_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10' });
  const platform = await openPlatform(config);
  const app = await buildApp({ config, db: platform.db, store: platform.store });
  await app.ready();
  const call = async (method: 'POST' | 'GET', path: string, token: string | null, payload?: unknown) => {
    const res = await app.inject({ method, url: path, headers: token ? { authorization: `Bearer ${token}` } : {}, payload: payload as Record<string, unknown> });
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const reg = (await call('POST', '/api/v2/auth/register', null, { email: `tt-${randomUUID().slice(0, 8)}@bench.test`, password: 'bench password 123', firstname: 'Bench', lastname: 'Time' })).data;
  const token = reg.token as string;
  const company = (await call('POST', '/api/v2/companies', token, { name: 'Bench time travel', subdomain: `tt-${randomUUID().slice(0, 8)}` })).data;
  await call('POST', `/api/v2/auth/companies/${company.uuid}/select`, token);
  const object = (await call('POST', '/api/v2/objects', token, { name: 'deal', label: 'Deal' })).data;
  for (const p of benchProperties) await call('POST', `/api/v2/objects/${object.uuid}/properties`, token, p);
  const tenant = company.uuid as string;
  const records = makeRecordsService({ db: platform.db, store: platform.store });
  const ctx = (i: number): CommandContext => ({ tenant, userUuid: reg.user.uuid, requestId: `tt-${i}`, now: Date.now() });

  // Seed: creates in batches of 100, then updates of random records (amount and status).
  const started = Date.now();
  const uuids: string[] = new Array(N);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (;;) {
        const from = next;
        if (from >= N) return;
        const to = Math.min(N, from + 100);
        next = to;
        const made = await Promise.all(Array.from({ length: to - from }, (_, k) => records.creation(tenant, 'deal', { properties: benchRecord(from + k) })));
        await handleCreations({ store: platform.store, context: ctx(from), writes: made.map((m) => m.write) });
        made.forEach((m, k) => (uuids[from + k] = m.uuid));
      }
    }),
  );
  const statuses = ['active', 'won', 'lost'];
  const update = (i: number) => records.update(ctx(i), uuids[mix(i * 31 + 7) % N]!, { amount: (mix(i) % 100_000) / 100, status: statuses[mix(i + 3) % 3] });
  let u = 0;
  const totalUpdates = N * UPDATES_PER;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (u < totalUpdates) await update(u++);
    }),
  );
  await platform.db.query('vacuum analyze events');
  await platform.db.query('vacuum analyze records');
  await platform.db.query('vacuum analyze record_values');
  const [{ events, first, last }] = await platform.db.query<{ events: string; first: string; last: string }>(
    `select count(*) as events, min(occurred_at) filter (where stream_id like 'record-%') as first, max(occurred_at) as last from events where tenant = $1`,
    [tenant],
  );
  say(`time travel bench: ${N.toLocaleString('en-US')} records, ${Number(events).toLocaleString('en-US')} events of the company (seeded in ${((Date.now() - started) / 1000).toFixed(0)} s)`);

  // Lists: the same request now and as of a random past time / position.
  const body = { filters: [{ key: 'status', operator: 'equals', value: 'won' }, { key: 'amount', operator: 'gte', value: 200 }], sort: [{ key: 'amount', direction: 'desc' }], limit: 25 };
  const list = async (extra: Record<string, unknown>) => {
    const t0 = performance.now();
    const res = await call('POST', '/api/v2/deal/index', token, { ...body, ...extra });
    return { ms: performance.now() - t0, total: res.total as number };
  };
  // Past points after the schema was made (before it, a filter on amount is a 400: the property did not exist).
  const [head] = await platform.db.query<{ p: string; r: string }>(`select max(position) as p, min(position) filter (where stream_id like 'record-%') as r from events where tenant = $1`, [tenant]);
  const pastTime = (i: number) => new Date(Number(first) + (mix(i) % (Number(last) - Number(first)))).toISOString();
  const pastPosition = (i: number) => String(Number(head!.r) + (mix(i + 99) % (Number(head!.p) - Number(head!.r))));
  const build = await list({ asOf: pastTime(0) });
  const now: number[] = [];
  const byTime: number[] = [];
  const byPosition: number[] = [];
  for (let i = 1; i <= ASKS; i++) {
    now.push((await list({})).ms);
    byTime.push((await list({ asOf: pastTime(i) })).ms);
    byPosition.push((await list({ asOf: pastPosition(i) })).ms);
  }
  const held = await asOfStats();
  say(`  current list (status = won, amount >= 200, by amount desc, 25): p50 ${ms(pct(now, 50))}, p99 ${ms(pct(now, 99))} (${ASKS} requests)`);
  say(`  as of a random past time:     p50 ${ms(pct(byTime, 50))}, p99 ${ms(pct(byTime, 99))}`);
  say(`  as of a random past position: p50 ${ms(pct(byPosition, 50))}, p99 ${ms(pct(byPosition, 99))}`);
  say(`  first asOf request (reads the object's timeline from the log: ${held.events.toLocaleString('en-US')} events): ${ms(build.ms)}; heap used now ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`);

  // Write cost: updates with no timeline held vs held and read every 100 writes.
  let w = totalUpdates;
  const writes = async (withTimeline: boolean) => {
    configureAsOf({ maxObjects: withTimeline ? 8 : 0 });
    if (withTimeline) await list({ asOf: pastTime(w) });
    let done = 0;
    let readMs = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (done < WRITES) {
          done++;
          await update(w++);
          if (withTimeline && done % 100 === 0) readMs += (await list({ asOf: pastTime(w) })).ms;
        }
      }),
    );
    const elapsed = performance.now() - t0 - readMs;
    return WRITES / (elapsed / 1000);
  };
  const rates = { without: [] as number[], with: [] as number[] };
  for (let round = 0; round < 3; round++) {
    rates.without.push(await writes(false));
    rates.with.push(await writes(true));
  }
  const med = (xs: number[]) => pct(xs, 50);
  say(`  record writes (updates, 16 clients, ${WRITES} a round, 3 rounds, median): without ${med(rates.without).toFixed(0)}/s, with timelines held and read ${med(rates.with).toFixed(0)}/s (${(((med(rates.without) - med(rates.with)) / med(rates.without)) * 100).toFixed(1)} % less); the write path is unchanged: no statement, row or index entry added`);

  // The feed: one client catching up from position 0 on a real server.
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const [{ n: expected }] = await platform.db.query<{ n: string }>('select count(*) as n from events where tenant = $1', [tenant]);
  const controller = new AbortController();
  const t0 = performance.now();
  const res = await fetch(`${address}/api/v2/events/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  if (!res.ok || !res.body) throw new Error(`events/stream: ${res.status}`);
  let received = 0;
  let rest = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = rest.indexOf('\n\n')) >= 0) {
      const message = rest.slice(0, at);
      rest = rest.slice(at + 2);
      if (/^id: /m.test(message)) received++;
      if (/^event: cut/m.test(message)) throw new Error(`the feed was cut: ${message}`);
    }
    if (received >= Number(expected)) break;
  }
  const feedMs = performance.now() - t0;
  controller.abort();
  say(`  feed catch-up from position 0: ${received.toLocaleString('en-US')} events in ${(feedMs / 1000).toFixed(2)} s = ${Math.round(received / (feedMs / 1000)).toLocaleString('en-US')} events/s`);
  await app.close();
  await platform.close();
} finally {
  if (!process.env.TT_KEEP) await admin.query(`drop database if exists ${DB} with (force)`);
  await admin.close();
}
