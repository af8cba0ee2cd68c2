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
 * searches depend on.
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
    const stale = await tx.query<{ relname: string }>(
      `select relname from pg_stat_user_tables
        where schemaname = current_schema() and relname = any($1::text[])
          and n_mod_since_analyze > $2::float8 + $3::float8 * greatest(n_live_tup, 0)
        order by relname`,
      [tables, minChanges, fraction],
    );
    await tx.query(`set local statement_timeout = ${Math.floor(statementTimeoutMs)}`);
    if (stale.length > 0) await tx.query(`analyze ${stale.map((t) => quoteIdent(t.relname)).join(', ')}`);
    await cleanPendingLists(tx, tables);
    return stale.map((t) => t.relname);
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

/** ANALYZE of every table given, whatever changed (the end of a rebuild or a bulk write). */
export async function analyzeTables(db: Db, tables: readonly string[], statementTimeoutMs = 0): Promise<void> {
  if (tables.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.query(`set local statement_timeout = ${Math.floor(statementTimeoutMs)}`);
    await tx.query(`analyze ${tables.map(quoteIdent).join(', ')}`);
  });
}

/** Checks every `intervalMs` until stopped; a failed check is reported and the next one runs. */
export function keepStatistics(db: Db, tables: readonly string[], options: StatisticsOptions & { intervalMs: number; onError?: (err: unknown) => void }) {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = refreshStatistics(db, tables, options).catch((err) => options.onError?.(err));
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
