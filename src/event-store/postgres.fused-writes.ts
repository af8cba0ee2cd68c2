import type { FusedWrite, PendingEvent, Projection } from '../../projections/projection.js';
import type { ExpectedRevision, NewEvent } from './port.js';
import { appendManyCtes } from './postgres.append-many.js';

/** An append as a group commit holds it: what a fused write needs of it. */
export interface FusableAppend {
  tenant: string;
  streamId: string;
  events: readonly NewEvent[];
  expected: ExpectedRevision;
  inTransaction?: unknown;
  stateAfter?: unknown;
}

/** A projection's fused write with its whole statement: the append's CTEs, then the write's. */
export interface FusedStatement {
  write: FusedWrite;
  text: string;
  /** Whether the write's projection is the only one that handles events of this type. */
  owns(type: string): boolean;
}

/** The fused writes of the projections (`Projection.withAppend`), for event types no other projection handles. */
export function fusedStatements(projections: readonly Projection[]): FusedStatement[] {
  const handlers = (type: string) => projections.filter((p) => p.handles.includes(type)).length;
  return projections.flatMap((p) =>
    (p.withAppend ?? []).map((write) => {
      const { ctes, check, answer } = write.sql('$2');
      const text = `with ${appendManyCtes}, ${ctes}
    select (select coalesce(json_agg(a order by a.position), '[]') from appended a) as appended, ${check} as checked${answer ? `, ${answer} as answers` : ''}`;
      return { write, text, owns: (type: string) => p.handles.includes(type) && handlers(type) === 1 };
    }),
  );
}

/**
 * The append's events as a fused write sees them, with their revisions (known unless the append
 * is `any` or `stream_exists`: then null) and, on the last, the writer's state after them.
 */
export function pendingEvents(p: FusableAppend): PendingEvent[] | null {
  const first = p.expected === 'no_stream' || (typeof p.expected === 'number' && p.expected < 0) ? 0 : typeof p.expected === 'number' ? p.expected + 1 : null;
  if (first === null) return null;
  const last = p.events.length - 1;
  return p.events.map((e, i) => ({ ...e, tenant: p.tenant, streamId: p.streamId, revision: first + i, ...(i === last ? { stateAfter: p.stateAfter } : {}) }));
}

/**
 * Which of `fused` takes the whole append, with its events as that write sees them (null: none,
 * it commits the usual way). An append with a hook never is taken.
 */
export function fusedWriteOf(fused: readonly FusedStatement[], p: FusableAppend): { index: number; events: PendingEvent[] } | null {
  if (fused.length === 0 || p.inTransaction) return null;
  const events = pendingEvents(p);
  if (!events) return null;
  const index = fused.findIndex((f) => events.every((e) => f.owns(e.type) && f.write.accepts(e)));
  return index < 0 ? null : { index, events };
}
