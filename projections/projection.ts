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
  /**
   * Optional (PostgreSQL): the writes of events that open new streams, as CTEs of the append
   * statement itself, so that a group commit of them is one statement and one round trip instead
   * of BEGIN, append, projection and COMMIT. The CTEs may read `heads` (tenant, stream_id,
   * revision of each stream the append made) and take their input (`input` of the group's
   * events) from the parameter `param`; `check` is an expression the statement selects (failing
   * it fails the statement, and then the appends are made the usual way). Used only for groups
   * whose every event is of `handles` and handled by no other projection.
   */
  withAppend?: {
    handles: readonly string[];
    sql(param: string): { ctes: string; check: string };
    input(events: readonly NewStreamEvent[]): string;
  };
}

/** An event of a new stream before its append gives it a position. */
export type NewStreamEvent = Pick<StoredEvent, 'tenant' | 'streamId' | 'revision' | 'type' | 'data' | 'metadata'>;
