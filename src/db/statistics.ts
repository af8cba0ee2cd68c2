import type { Db } from './db.js';

/**
 * The planner's statistics of the read models are the project's own business: a server whose
 * autovacuum is off (or not yet run after a bulk import) plans a filtered index over 100,000
 * never-analyzed rows as if it held none, and the plan can run for minutes.
 *
 * The rule is autovacuum's own, checked by us: a table is analyzed once the rows changed since
 * its last ANALYZE exceed `minChanges + fraction * live rows` (PostgreSQL's own counts in
 * pg_stat_user_tables, so changes made by every process count, and nothing is kept in memory).
 * Each check takes a transaction-scoped advisory lock, so of several processes one analyzes and
 * the others skip; ANALYZE runs under the maintenance time limit. The same check merges the
 * pending lists of the tables' GIN indexes (`cleanPendingLists`), autovacuum's other job that
 * searches depend on, and vacuums the tables whose dead rows passed autovacuum's threshold
 * (`vacuumStale`), so updates and deletes do not grow the tables and their indexes for ever.
 */
export interface StatisticsOptions {
  /** Changes needed whatever the table's size (autovacuum: 50). */
  minChanges?: number;
  /** Share of the live rows that must have changed (autovacuum: 0.1). */
  fraction?: number;
  /** Time limit of the ANALYZE statements (0: none). */
  statementTimeoutMs?: number;
}

const LOCK_KEY = 0x5354_4154; // "STAT": one analyzer at a time across processes

/** Analyzes the tables among `tables` that changed past the threshold; returns their names. */
export async function refreshStatistics(db: Db, tables: readonly string[], options: StatisticsOptions = {}): Promise<string[]> {
  if (tables.length === 0) return [];
  const { minChanges = 50, fraction = 0.1, statementTimeoutMs = 0 } = options;
  return db.transaction(async (tx) => {
    const [lock] = await tx.query<{ got: boolean }>('select pg_try_advisory_xact_lock($1) as got', [LOCK_KEY]);
    if (!lock?.got) return [];
    const stale = await tablesPast(tx, tables, 'n_mod_since_analyze', minChanges, fraction);
    await tx.query(`set local statement_timeout = ${Math.floor(statementTimeoutMs)}`);
    if (stale.length > 0) await tx.query(`analyze ${stale.map(quoteIdent).join(', ')}`);
    await cleanPendingLists(tx, tables);
    return stale;
  });
}

/**
 * Moves the pending lists of the tables' GIN indexes (fastupdate: new keys are appended there and
 * merged into the tree later) into their trees. Autovacuum would do it; without it the list
 * grows to `gin_pending_list_limit` (4 MB) and then every search of the index reads all of it (a
 * free-text search on 20,000 records: 11 ms in the index instead of 0.15 ms), and the insert that
 * finds it full merges it on the request's time. Cheap when a list is empty.
 */
async function cleanPendingLists(tx: Pick<Db, 'query'>, tables: readonly string[]) {
  await tx.query(
    `select gin_clean_pending_list(i.indexrelid::regclass)
       from pg_index i
       join pg_class ic on ic.oid = i.indexrelid
       join pg_am am on am.oid = ic.relam and am.amname = 'gin'
       join pg_class t on t.oid = i.indrelid
      where t.relname = any($1::text[]) and t.relnamespace = current_schema()::regnamespace`,
    [tables],
  );
}

/** When a table is vacuumed: autovacuum's rule (dead rows past 50 + a fifth of the live ones). */
export interface VacuumOptions {
  /** Dead rows needed whatever the table's size (autovacuum: 50). */
  minDead?: number;
  /** Share of the live rows that must be dead (autovacuum: 0.2). */
  fraction?: number;
  /** Time limit of each VACUUM (0: none). */
  statementTimeoutMs?: number;
}

/**
 * VACUUM of the tables among `tables` whose dead rows (PostgreSQL's own count, every process's
 * updates and deletes) passed `minDead + fraction * live rows`; returns their names. Outside a
 * transaction (VACUUM refuses one), one table at a time, each on a connection of its own. With
 * SKIP_LOCKED, a table another process is vacuuming (or altering) is left for the next check.
 */
export async function vacuumStale(db: Db, tables: readonly string[], options: VacuumOptions = {}): Promise<string[]> {
  if (tables.length === 0) return [];
  const { minDead = 50, fraction = 0.2, statementTimeoutMs = 0 } = options;
  const stale = await tablesPast(db, tables, 'n_dead_tup', minDead, fraction);
  for (const t of stale) await db.maintain(`vacuum (skip_locked) ${quoteIdent(t)}`, statementTimeoutMs);
  return stale;
}

/**
 * The tables among `tables` whose count `counter` (of pg_stat_user_tables: PostgreSQL's own, so
 * every process's writes count) passed `min + fraction * live rows`, autovacuum's form of rule.
 */
async function tablesPast(sql: Pick<Db, 'query'>, tables: readonly string[], counter: 'n_mod_since_analyze' | 'n_dead_tup', min: number, fraction: number) {
  const rows = await sql.query<{ relname: string }>(
    `select relname from pg_stat_user_tables
      where schemaname = current_schema() and relname = any($1::text[])
        and ${counter} > $2::float8 + $3::float8 * greatest(n_live_tup, 0)
      order by relname`,
    [tables, min, fraction],
  );
  return rows.map((r) => r.relname);
}

/** ANALYZE of every table given, whatever changed (the end of a rebuild or a bulk write). */
export async function analyzeTables(db: Db, tables: readonly string[], statementTimeoutMs = 0): Promise<void> {
  if (tables.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.query(`set local statement_timeout = ${Math.floor(statementTimeoutMs)}`);
    await tx.query(`analyze ${tables.map(quoteIdent).join(', ')}`);
  });
}

/** Checks every `intervalMs` until stopped (statistics, then VACUUM); a failed check is reported and the next one runs. */
export function keepStatistics(db: Db, tables: readonly string[], options: StatisticsOptions & { intervalMs: number; onError?: (err: unknown) => void }) {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    // A VACUUM may outlast the interval: the next check waits for the next tick after it.
    if (busy) return;
    busy = true;
    running = refreshStatistics(db, tables, options)
      .then(() => vacuumStale(db, tables, { statementTimeoutMs: options.statementTimeoutMs }))
      .catch((err) => options.onError?.(err))
      .finally(() => {
        busy = false;
      });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
