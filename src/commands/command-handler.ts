import { DomainError } from '../../aggregates/kernel/errors.js';
import type { Decider } from '../../aggregates/kernel/decider.js';
import type { DomainEvent, EventMetadata, StoredEvent } from '../../aggregates/kernel/events.js';
import type { Sql } from '../db/db.js';
import type { EventStore, ExpectedStreamRevision } from '../event-store/port.js';

/** Who asks, and why: becomes every event's metadata. */
export interface CommandContext {
  tenant: string;
  userUuid: string | null;
  requestId: string;
  correlationId?: string;
  causationId?: string | null;
  now: number;
  /** An app's function acting for the installing company: kept in every event's metadata. */
  app?: { appUuid: string; installation: string };
}

export interface HandleOptions<State, Command, Event extends DomainEvent> {
  store: EventStore;
  decider: Decider<State, Command, Event>;
  streamId: string;
  command: Command | ((state: State, revision: number) => Command);
  context: CommandContext;
  /** A precondition from the caller (body `expectedRevision` or If-Match): never retried. */
  expectedRevision?: number;
  /** Work in the append's transaction (Postgres), e.g. reserving a unique value. */
  inTransaction?: (tx: Sql, events: StoredEvent[]) => Promise<void>;
  /**
   * The state and revision at the stream's head without reading the stream: a read model that is
   * written in the append's own transaction (so its revision is the stream's). `attempt` counts
   * from 0; null reads the stream.
   */
  snapshot?: (attempt: number) => Promise<{ state: State; revision: number } | null>;
  maxRetries?: number;
  /** Wait before retry `attempt` (from 1), so writers racing on one stream spread out. Default: none. */
  retryDelayMs?: (attempt: number) => number;
}

export interface Handled<State> {
  state: State;
  revision: number;
  events: StoredEvent[];
  /** What the append statement answered (`AppendResult.answer`), when it did. */
  answer?: unknown;
}

export function metadataFor(context: CommandContext, schemaVersion: number): EventMetadata {
  return {
    tenant: context.tenant,
    userUuid: context.userUuid,
    requestId: context.requestId,
    correlationId: context.correlationId ?? context.requestId,
    causationId: context.causationId ?? null,
    occurredAt: context.now,
    schemaVersion,
    ...(context.app ? { app: context.app } : {}),
  };
}

/** The stream's state and revision, folded from its events. */
async function fold<State, Command, Event extends DomainEvent>({ store, decider, streamId, context }: HandleOptions<State, Command, Event>) {
  const history = await store.readStream(context.tenant, streamId);
  let state = decider.initialState();
  for (const e of history) state = decider.evolve(state, { type: e.type, version: e.version, data: e.data } as Event);
  return { state, revision: history.length === 0 ? -1 : history[history.length - 1]!.revision };
}

/**
 * The write path: the stream folded (or its snapshot), decide, append with the revision we decided on.
 * Without a caller precondition a conflicting append is retried on fresh state (bounded), so no
 * acknowledged write is lost and none is applied twice.
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  opts: HandleOptions<State, Command, Event>,
): Promise<Handled<State>> {
  const { store, decider, streamId, context } = opts;
  const retries = opts.expectedRevision === undefined ? (opts.maxRetries ?? 8) : 0;
  for (let attempt = 0; ; attempt++) {
    const head = (await opts.snapshot?.(attempt)) ?? (await fold(opts));
    const revision = head.revision;
    let state = head.state;
    if (opts.expectedRevision !== undefined && opts.expectedRevision !== revision) {
      throw new DomainError('WRONG_EXPECTED_REVISION', `expected revision ${opts.expectedRevision}, but it is ${revision}`, [
        {
          message: `The resource is at revision ${revision}, not ${opts.expectedRevision}`,
          type: 'GENERAL',
          correctionSuggestion: 'Read the resource again and retry with its current revision',
        },
      ], { actualRevision: revision });
    }
    const command = typeof opts.command === 'function' ? (opts.command as (s: State, r: number) => Command)(state, revision) : opts.command;
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, revision, events: [] };
    const expected: ExpectedStreamRevision = revision < 0 ? 'no_stream' : revision;
    for (const e of events) state = decider.evolve(state, e);
    try {
      const result = await store.append(
        context.tenant,
        streamId,
        events.map((e) => ({ ...e, metadata: metadataFor(context, e.version) })),
        { expectedStreamRevision: expected, inTransaction: opts.inTransaction, stateAfter: state },
      );
      return { state, revision: result.nextRevision, events: result.events, ...(result.answer === undefined ? {} : { answer: result.answer }) };
    } catch (err) {
      if (err instanceof DomainError && err.code === 'WRONG_EXPECTED_REVISION' && attempt < retries) {
        const delay = opts.retryDelayMs?.(attempt + 1) ?? 0;
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        continue;
      }
      throw err;
    }
  }
}

/** One new stream of a multi-stream create: its id and the events its command decides on an empty stream. */
export interface NewStreamWrite {
  streamId: string;
  decide(): readonly DomainEvent[];
}

/** A create for `handleCreations`: `command` decided by `decider` against its initial state. */
export function newStreamWrite<State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>, streamId: string, command: Command): NewStreamWrite {
  return { streamId, decide: () => decider.decide(command, decider.initialState()) };
}

/**
 * Several new streams created in one command (a form submission: its records, their connections
 * and the submission itself). Each command is decided against its decider's initial state, and
 * every stream is appended at `no_stream` in one transaction (`AppendOptions.together`, Postgres
 * adapter only, docs/adr/0004): a refused command, a taken stream, a unique value or a projection's
 * constraint leaves nothing behind. Never retried: a taken stream is the caller's answer.
 */
export async function handleCreations(opts: { store: EventStore; context: CommandContext; writes: readonly NewStreamWrite[] }): Promise<StoredEvent[]> {
  const { store, context, writes } = opts;
  if (writes.length === 0) return [];
  const decided = writes.map((w) => {
    const events = w.decide();
    if (events.length === 0) throw new Error(`creating ${w.streamId} decided no event`);
    return { streamId: w.streamId, events: events.map((e) => ({ ...e, metadata: metadataFor(context, e.version) })) };
  });
  const [first, ...rest] = decided;
  const result = await store.append(context.tenant, first!.streamId, first!.events, {
    expectedStreamRevision: 'no_stream',
    together: rest.map((d) => ({ streamId: d.streamId, events: d.events, expectedStreamRevision: 'no_stream' as const })),
  });
  return result.events;
}
