import type { StoredEvent } from '../aggregates/kernel/events.js';
import type { Sql } from '../ports/sql.js';

// The statement port has its own home (ports/sql.ts); named here too, as the type of `apply`'s `tx`.
export type { Sql };

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
   * Optional (PostgreSQL): writes made by the append statement itself, so that a group commit of
   * such events is one statement and one round trip instead of BEGIN, append, projection and
   * COMMIT. Used only for events no other projection handles.
   */
  withAppend?: readonly FusedWrite[];
}

/** An event before its append gives it a position. */
export interface PendingEvent extends Pick<StoredEvent, 'tenant' | 'streamId' | 'revision' | 'type' | 'data' | 'metadata'> {
  /** On an append's last event: its writer's state of the stream after it (`AppendOptions.stateAfter`), when given. */
  stateAfter?: unknown;
}

/**
 * A projection's writes as CTEs of the append statement. They may read `heads` (tenant, stream_id,
 * revision of each stream the append moved) and take their input (`input` of the group's events)
 * from the parameter `param`; `check` is an expression the statement selects: failing it fails
 * the statement, and then the appends are made the usual way. `answer`, optional, is one more
 * expression it selects: a JSON array of `{tenant, stream_id, answer}` for appends it wrote, each
 * `answer` handed to that append's writer (`AppendResult.answer`), so that what the writer's reply
 * needs beside its own state is read in the same round trip. It changes no row.
 */
export interface FusedWrite {
  /** The prepared statement's name. */
  name: string;
  /** Whether the event can be written so: an append is, when all its events are. */
  accepts(event: PendingEvent): boolean;
  sql(param: string): { ctes: string; check: string; answer?: string };
  input(events: readonly PendingEvent[]): string;
}
