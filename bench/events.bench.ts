/**
 * `npm run bench:events`: event-store throughput on PGlite and, when DATABASE_URL is set, on
 * PostgreSQL. Prints a table; not a test. BENCH_ONLY=pglite|postgres runs one; BENCH_SECONDS sets
 * the time per figure; BENCH_COMMITS the group commits at once (default: the store's, 2 on PostgreSQL).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '../aggregates/kernel/errors.js';
import type { Db } from '../src/db/db.js';
import { createPgliteDb } from '../src/db/pglite.db.js';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { migrate } from '../src/db/migrate.js';
import { createPostgresEventStore } from '../src/event-store/postgres.store.js';
import type { EventStore, NewEvent } from '../src/event-store/port.js';
import { rebuildReadModels } from '../src/projections/rebuild.js';
import { tallyProjection, tallyTableSql } from '../test/support/tally.fixture.js';
import { adminUrl, databaseUrlFor } from '../test/support/pg-urls.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const meta = (i: number) => ({ tenant: 'bench', userUuid: null, requestId: `r${i}`, correlationId: `r${i}`, causationId: null, occurredAt: Date.now(), schemaVersion: 1 });
const ev = (i: number): NewEvent => ({ type: 'TallyAdded', version: 1, data: { n: 1 }, metadata: meta(i) });

async function forSeconds(writers: number, work: (writer: number, i: number) => Promise<number>) {
  const until = Date.now() + SECONDS * 1000;
  let count = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; Date.now() < until; i++) {
        const done = await work(w, i);
        count += done;
      }
    }),
  );
  return count / ((Date.now() - started) / 1000);
}

async function measure(label: string, db: Db) {
  await migrate(db);
  await db.exec(tallyTableSql);
  const store: EventStore = await createPostgresEventStore({ db, maxConcurrentCommits: process.env.BENCH_COMMITS ? Number(process.env.BENCH_COMMITS) : undefined });
  const rows: [string, string][] = [];
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

  rows.push(['single-event appends/s, 1 writer', fmt(await forSeconds(1, async (w, i) => (await store.append('bench', `s1-${i}`, [ev(i)], { expectedStreamRevision: 'no_stream' }), 1)))]);
  rows.push(['single-event appends/s, 16 writers, distinct streams', fmt(await forSeconds(16, async (w, i) => (await store.append('bench', `s16-${w}`, [ev(i)], { expectedStreamRevision: 'any' }), 1)))]);
  const batch = Array.from({ length: 10 }, (_, i) => ev(i));
  rows.push(['events/s in batches of 10, 16 writers', fmt(await forSeconds(16, async (w) => (await store.append('bench', `b-${w}`, batch, { expectedStreamRevision: 'any' }), 10)))]);
  // As requests append them: each batch has its own requestId (above, ten ids repeat, which keeps
  // the requestId index's inserts on a few pages).
  const ownRequest = () => {
    const id = randomUUID();
    return batch.map((e) => ({ ...e, metadata: { ...e.metadata, requestId: id, correlationId: id } }));
  };
  rows.push(['  same, a new requestId per batch', fmt(await forSeconds(16, async (w) => (await store.append('bench', `b-${w}`, ownRequest(), { expectedStreamRevision: 'any' }), 10)))]);
  let conflicts = 0;
  const heads = new Map<number, number>();
  const oneStream = await forSeconds(16, async (w, i) => {
    try {
      const r = await store.append('bench', 'contended', [ev(i)], { expectedStreamRevision: heads.get(w) ?? 'no_stream' });
      heads.set(w, r.nextRevision);
      return 1;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      conflicts++;
      heads.set(w, Number(err.extra.actualRevision));
      return 0;
    }
  });
  rows.push(['appends/s, 16 writers on one stream (expected revision)', `${fmt(oneStream)} (${fmt(conflicts / SECONDS)} conflicts/s)`]);

  const [{ n }] = (await db.query<{ n: number }>('select count(*)::int8 as n from events')) as [{ n: number }];
  // Fresh tables have no statistics; autovacuum would gather them in production.
  await db.query('analyze events');
  let t = Date.now();
  let after: string | undefined;
  let read = 0;
  for (;;) {
    const b = await store.readAll({ after, maxCount: 2000 });
    if (b.length === 0) break;
    read += b.length;
    after = b[b.length - 1]!.checkpoint;
  }
  rows.push([`gap-safe read-all events/s (${fmt(read)} events)`, fmt(read / ((Date.now() - t) / 1000))]);
  // Rebuild of a read model fed by every event (each TallyAdded updates one row).
  await db.query(`insert into test_tallies select 'bench', stream_id, 'x', 0, false, -1 from streams on conflict do nothing`);
  t = Date.now();
  const r = await rebuildReadModels(db, store, [{ ...tallyProjection, tables: [] }], 5000);
  rows.push([`rebuild events/s (${fmt(r.events)} events)`, fmt(r.events / ((Date.now() - t) / 1000))]);
  await store.close();

  process.stdout.write(`\n${label} (${fmt(n)} events in the log, ${SECONDS} s per figure)\n`);
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(width)}  ${v}\n`);
}

const ONLY = process.env.BENCH_ONLY; // 'pglite' | 'postgres'

if (ONLY !== 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-'));
  const pglite = await createPgliteDb(dir);
  try {
    await measure('PGlite (in-process, one connection)', pglite);
  } finally {
    await pglite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ONLY === 'pglite') {
  // PostgreSQL not asked for.
} else if (process.env.DATABASE_URL) {
  const name = `platform_bench_${process.pid}`;
  const admin = createPostgresDb({ connectionString: adminUrl(process.env.DATABASE_URL), max: 1 });
  await admin.query(`create database ${name}`);
  const db = createPostgresDb({ connectionString: databaseUrlFor(process.env.DATABASE_URL, name), max: 32 });
  try {
    await measure('PostgreSQL', db);
  } finally {
    await db.close();
    await admin.query(`drop database ${name} with (force)`);
    await admin.close();
  }
} else {
  process.stdout.write('\nPostgreSQL: skipped (set DATABASE_URL to measure it)\n');
}
