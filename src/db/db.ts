import type { Sql } from '../../ports/sql.js';

export type { Sql };

/** The one database port of the shell: PostgreSQL through `pg`, or PGlite in-process. */
export interface Db extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /** Like `query`, with each row as an array of column values: cheaper for large reads. */
  queryRows(text: string, params?: unknown[], name?: string): Promise<unknown[][]>;
  /** Runs `fn` in one transaction; a throw rolls everything back. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Runs one maintenance statement outside any transaction (VACUUM refuses one), on a connection
   * of its own, cancelled after `timeoutMs` (0: no limit) instead of the requests' time limit.
   */
  maintain(statement: string, timeoutMs: number): Promise<void>;
  /** Calls `onMessage` for each NOTIFY on `channel`; returns the unsubscribe. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
