import { describe, expect, it } from 'vitest';
import { refreshStatistics, vacuumStale } from '../../src/db/statistics.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { projections } from '../../projections/index.js';
import { onPostgres, useTestStore } from '../support/test-db.js';

// Item 5 of issue 20: the planner's statistics are kept fresh by the project, not by autovacuum.
const ctx = useTestStore();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function analyzedRows(table: string) {
  const [row] = await ctx.db.query<{ analyzed: boolean; changed: number; reltuples: number }>(
    `select s.last_analyze is not null as analyzed, s.n_mod_since_analyze::int as changed, c.reltuples::int as reltuples
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = $1`,
    [table],
  );
  return row;
}

/** PostgreSQL publishes a backend's counts up to a second late: ask until they are there. */
async function refreshUntil(tables: string[], want: string[]) {
  for (let i = 0; i < 60; i++) {
    const done = await refreshStatistics(ctx.db, tables);
    if (done.length > 0 || want.length === 0) return done;
    await sleep(100);
  }
  return [];
}

describe('statistics of the read models', () => {
  it('analyzes a table once it changed past 50 rows plus a tenth of its size, and not before', async () => {
    await ctx.db.query('create table stats_probe (a int)');
    await ctx.db.query('insert into stats_probe select generate_series(1, 1000)');
    expect(await refreshUntil(['stats_probe', 'no_such_table'], ['stats_probe'])).toEqual(['stats_probe']);
    expect(await analyzedRows('stats_probe')).toEqual({ analyzed: true, changed: 0, reltuples: 1000 });

    // 100 changes of 1,000 rows: under the threshold (150).
    await ctx.db.query('update stats_probe set a = -a where a <= 100');
    await sleep(1200);
    expect(await refreshStatistics(ctx.db, ['stats_probe'])).toEqual([]);
    // 200 more: 300 changed since the last ANALYZE, past it.
    await ctx.db.query('delete from stats_probe where a > 800');
    expect(await refreshUntil(['stats_probe'], ['stats_probe'])).toEqual(['stats_probe']);
    expect(await analyzedRows('stats_probe')).toEqual({ analyzed: true, changed: 0, reltuples: 800 });
  });

  it('merges the pending lists of GIN indexes, which autovacuum would, so searches do not read them', async () => {
    await ctx.db.query('create table stats_gin (doc tsvector)');
    await ctx.db.query('create index stats_gin_doc on stats_gin using gin (doc) with (fastupdate = on)');
    const insert = () => ctx.db.query(`insert into stats_gin select to_tsvector('simple', 'word' || g || ' other' || (g % 7)) from generate_series(1, 2000) g`);
    await insert();
    // A positive control: the insert left pending pages, which the function merges and counts.
    const [control] = await ctx.db.query<{ pages: number }>(`select gin_clean_pending_list('stats_gin_doc'::regclass)::int as pages`);
    expect(control!.pages).toBeGreaterThan(0);
    await insert();
    await refreshStatistics(ctx.db, ['stats_gin']);
    const [after] = await ctx.db.query<{ pages: number }>(`select gin_clean_pending_list('stats_gin_doc'::regclass)::int as pages`);
    expect(after!.pages).toBe(0);
  });

  it('vacuums a table once its dead rows pass 50 plus a fifth of its live ones, and not before', async () => {
    const dead = async () =>
      (await ctx.db.query<{ dead: number; vacuumed: boolean }>(
        `select n_dead_tup::int as dead, last_vacuum is not null as vacuumed from pg_stat_user_tables where relname = 'vac_probe'`,
      ))[0];
    await ctx.db.query('create table vac_probe (a int)');
    await ctx.db.query('insert into vac_probe select generate_series(1, 1000)');
    // 100 dead of 900 live: under the threshold (50 + 180).
    await ctx.db.query('delete from vac_probe where a <= 100');
    for (let i = 0; i < 60 && (await dead())!.dead < 100; i++) await sleep(100);
    expect(await dead()).toEqual({ dead: 100, vacuumed: false });
    expect(await vacuumStale(ctx.db, ['vac_probe', 'no_such_table'])).toEqual([]);
    // 400 dead of 600 live: past it (50 + 120).
    await ctx.db.query('delete from vac_probe where a <= 400');
    for (let i = 0; i < 60 && (await dead())!.dead < 400; i++) await sleep(100);
    expect(await vacuumStale(ctx.db, ['vac_probe'])).toEqual(['vac_probe']);
    for (let i = 0; i < 60 && !(await dead())!.vacuumed; i++) await sleep(100);
    expect(await dead()).toEqual({ dead: 0, vacuumed: true });
    expect(await vacuumStale(ctx.db, ['vac_probe'])).toEqual([]);
  });

  it.runIf(onPostgres)('runs maintenance under its own time limit, which no pooled statement inherits', async () => {
    await expect(ctx.db.maintain('select pg_sleep(2)', 100)).rejects.toMatchObject({ code: '57014' });
    await ctx.db.maintain('set statement_timeout = 1', 0);
    // Every pooled connection answers a 50 ms statement (the 1 ms limit left with its connection).
    const answers = await Promise.all(Array.from({ length: 8 }, () => ctx.db.query<{ ok: number }>('select 1 as ok from pg_sleep(0.05)')));
    expect(answers.map((r) => r[0]!.ok)).toEqual(Array(8).fill(1));
  });

  it('ends a rebuild with ANALYZE of every read model', async () => {
    const tables = [...new Set(projections.flatMap((p) => p.tables))];
    await rebuildReadModels(ctx.db, ctx.store, projections);
    const [never] = await ctx.db.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_user_tables where relname = any($1::text[]) and last_analyze is null',
      [tables],
    );
    const [known] = await ctx.db.query<{ n: number }>('select count(*)::int as n from pg_stat_user_tables where relname = any($1::text[])', [tables]);
    expect(known!.n).toBe(tables.length);
    expect(never!.n).toBe(0);
  });
});
