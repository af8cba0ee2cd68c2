import type { StoredEvent } from '../aggregates/kernel/events.js';

/** The part of a database connection a projection may use: one parameterised statement at a time. */
export interface Sql {
  /** `name` makes it a prepared statement on PostgreSQL: for hot statements of fixed text. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<T[]>;
}

/**
 * A read model fed by events. `apply` must be idempotent (guard on stream revision or position)
 * and must not call out: it only changes rows in `tables`, which a rebuild truncates.
 */
export interface Projection {
  name: string;
  tables: readonly string[];
  handles: readonly string[];
  apply(event: StoredEvent, tx: Sql): Promise<void>;
  /**
   * Optional: the same as `apply` of each event in order, in fewer statements. Used for runs of
   * consecutive events that no other projection handles (rebuilds, group commits).
   */
  applyBatch?(events: readonly StoredEvent[], tx: Sql): Promise<void>;
}
