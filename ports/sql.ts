/**
 * The database port as projections, queries and the shell see it: one parameterised statement at a
 * time. Types only: `src/db/` implements it (PostgreSQL through `pg`, PGlite in-process) and adds
 * what only the shell uses (transactions, LISTEN, scripts) in `Db`.
 */
export interface Sql {
  /** `name` makes it a prepared statement on PostgreSQL: for hot statements of fixed text. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<T[]>;
}

