import type { Observable } from 'rxjs';
import type { DomainEvent, EventMetadata, StoredEvent } from '../../aggregates/kernel/events.js';
import type { Sql } from '../db/db.js';

/**
 * The store's check of an append: `no_stream`: must not exist; `stream_exists`: must exist; `any`;
 * or the exact last revision. Not the caller's precondition (`expectedRevision`, If-Match), which
 * the command handler checks against the state it read before it appends at that revision.
 */
export type ExpectedStreamRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface NewEvent extends DomainEvent {
  metadata: EventMetadata;
}

export interface AppendResult {
  /** The stream's revision after the append (the last event's revision). */
  nextRevision: number;
  /** The stream's events; with `together`, then the other streams' events in the order given. */
  events: StoredEvent[];
  /**
   * What a projection's write in the append statement answered for this append
   * (`FusedWrite.sql().answer`, Postgres adapter only); absent when the append took another path,
   * so a writer that uses it reads the same thing itself then.
   */
  answer?: unknown;
}

export interface AppendOptions {
  expectedStreamRevision: ExpectedStreamRevision;
  /** Extra work in the append's transaction (Postgres adapter only, docs/adr/0004), after the inline projections. */
  inTransaction?: (tx: Sql, events: StoredEvent[]) => Promise<void>;
  /**
   * The writer's state of the stream after these events (its decider's). A projection that writes
   * with the append statement (`Projection.withAppend`, Postgres adapter only) may take its input
   * from it instead of reading its rows; nothing else reads it. A hint: ignoring it changes no row
   * (docs/adr/0004, test/records/record-write-paths.law.test.ts).
   */
  stateAfter?: unknown;
  /**
   * More streams appended in the same transaction as this one (Postgres adapter only,
   * docs/adr/0004): every append lands or none does. A form submission creates its records, their
   * connections and itself this way (`handleCreations`). The streams must be distinct.
   */
  together?: readonly TogetherAppend[];
}

/** One more stream of an atomic multi-stream append. */
export interface TogetherAppend {
  streamId: string;
  events: NewEvent[];
  expectedStreamRevision: ExpectedStreamRevision;
}

export interface ReadStreamOptions {
  /** Revision to start from, inclusive. Defaults to the first (forwards) or last (backwards). */
  fromRevision?: number;
  direction?: 'forwards' | 'backwards';
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events after this checkpoint. `undefined` reads from the start. */
  after?: string;
  maxCount?: number;
}

/** The event-store port. Every adapter passes the same contract suite (test/event-store.contract.ts). */
export interface EventStore {
  readonly name: string;
  /** Appends atomically; a revision mismatch throws DomainError WRONG_EXPECTED_REVISION. */
  append(tenant: string, streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult>;
  readStream(tenant: string, streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /** The global log in commit-safe order; never skips an event that commits late. */
  readAll(options?: ReadAllOptions): Promise<StoredEvent[]>;
  /** Live feed of the global log after `after`: a catch-up read, then woken by new appends. */
  subscribe(options?: { after?: string; batchSize?: number }): Observable<StoredEvent>;
  close(): Promise<void>;
}
