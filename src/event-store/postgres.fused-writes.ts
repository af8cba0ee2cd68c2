import type { FusedWrite, PendingEvent, Projection } from '../../projections/projection.js';
import type { ExpectedStreamRevision, NewEvent } from './port.js';
import { appendManyCtes } from './postgres.append-many.js';

/** An append as a group commit holds it: what a fused write needs of it. */
export interface FusableAppend {
  tenant: string;
  streamId: string;
  events: readonly NewEvent[];
  expected: ExpectedStreamRevision;
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
  return projections.flatMap((p) => {
    // Asked for every event of every append a group commit holds: known once.
    const owned = new Set(p.handles.filter((type) => handlers(type) === 1));
    return (p.withAppend ?? []).map((write) => {
      const { ctes, check, answer } = write.sql('$2');
      const text = `with ${appendManyCtes}, ${ctes}
    select (select coalesce(json_agg(a order by a.position), '[]') from appended a) as appended, ${check} as checked${answer ? `, ${answer} as answers` : ''}`;
      return { write, text, owns: (type: string) => owned.has(type) };
    });
  });
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

/** A multi-stream append as a group commit holds it (`AppendOptions.together`): its own stream, then the others. */
export interface FusableTogether extends FusableAppend {
  together?: readonly { streamId: string; events: readonly NewEvent[]; expected: ExpectedStreamRevision }[];
}

/**
 * The fused writes that take every stream of a multi-stream append, each with the events it
 * writes (null: a stream no write takes whole, or a hook: the append commits in a transaction).
 */
export function fusedTogetherOf(fused: readonly FusedStatement[], p: FusableTogether): Map<number, PendingEvent[]> | null {
  if (!p.together || p.inTransaction) return null;
  const writes = new Map<number, PendingEvent[]>();
  for (const part of [p, ...p.together.map((t) => ({ ...t, tenant: p.tenant }))]) {
    const taken = fusedWriteOf(fused, part);
    if (!taken) return null;
    writes.set(taken.index, [...(writes.get(taken.index) ?? []), ...taken.events]);
  }
  return writes;
}

/**
 * One statement for multi-stream appends (docs/adr/0004, addendum): the append's CTEs, then the
 * CTEs of each fused write in `writes` (indexes into `fused`), the i-th taking its input from
 * parameter $(i + 2). All or none: when a stream's check failed (it is not in `heads`), the last
 * column fails the statement (a text read as an integer: 22P02), and the store commits the
 * appends the usual way, which gives each its own error.
 */
export function togetherStatement(fused: readonly FusedStatement[], writes: readonly number[]): { name: string; text: string } {
  const parts = writes.map((k, i) => fused[k]!.write.sql(`$${i + 2}`));
  const text = `with ${appendManyCtes}, ${parts.map((p) => p.ctes).join(',\n')}
    select (select coalesce(json_agg(a order by a.position), '[]') from appended a) as appended,
           ${parts.map((p, i) => `${p.check} as checked_${i}`).join(', ')},
           (case when (select count(*) from heads) <> (select count(*) from req) then 'streams moved: ' || (select count(*) from heads) end)::int as together`;
  return { name: `append_together_${writes.join('_')}`, text };
}
