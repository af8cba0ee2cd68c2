import type { Subscription } from 'rxjs';
import type { FastifyBaseLogger } from 'fastify';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import type { Db, Sql } from '../db/db.js';
import { reactorEventsProcessed } from '../metrics/metrics.js';
import type { EventStore } from '../event-store/port.js';

/**
 * A reactor: a subscriber of the global log with its own checkpoint (a row of `checkpoints`).
 * `prepare` runs outside any transaction (reads, and commands, which must be idempotent: after a
 * crash the same events are prepared again); `commit` runs in the transaction that advances the
 * checkpoint, so what it writes (an outbox) is written exactly once per event.
 */
export interface Reactor<Prepared> {
  /** The checkpoint row's name. */
  name: string;
  handles(event: StoredEvent): boolean;
  prepare(events: StoredEvent[]): Promise<Prepared>;
  commit(prepared: Prepared, tx: Sql): Promise<void>;
  /** After the commit, e.g. to wake a dispatcher. */
  afterCommit?(prepared: Prepared): void;
}

export interface ReactorRunner {
  readonly name: string;
  /** The last committed checkpoint seen by this runner ('' before the first event). */
  checkpoint(): string;
  /** Stops reading; resolves once the batch in hand is committed or dropped. */
  stop(): Promise<void>;
}

export interface RunnerOptions {
  db: Db;
  store: EventStore;
  log: FastifyBaseLogger;
  batchSize?: number;
  /** Wait before starting again after a failure. */
  retryDelayMs?: number;
  /** Past this many events held in memory the live feed is dropped and the runner catches up by reading. */
  highWater?: number;
}

class CheckpointMoved extends Error {}

/** Which of a batch's events reactors may act on (a sandbox's only when its owner turned them on: docs/sandboxes.md). */
export type ReactorGate = (events: StoredEvent[]) => Promise<StoredEvent[]>;
const gates = new WeakMap<Db, ReactorGate>();
/** Sets the gate every reactor of this database passes its events through. */
export const gateReactors = (db: Db, gate: ReactorGate) => void gates.set(db, gate);

async function loadCheckpoint(db: Db, name: string): Promise<string> {
  await db.query(`insert into checkpoints (name, checkpoint, updated_at) values ($1, '', $2) on conflict (name) do nothing`, [name, Date.now()]);
  const [row] = await db.query<{ checkpoint: string }>('select checkpoint from checkpoints where name = $1', [name]);
  return row?.checkpoint ?? '';
}

/**
 * Runs a reactor: catches up from its stored checkpoint by reading the log in batches, then
 * follows the live feed. Each batch is prepared, then committed with the checkpoint advance in
 * one transaction that first locks the checkpoint row and checks it still holds what this runner
 * read: a second instance running the same reactor never commits a batch twice, it starts again
 * from the stored checkpoint instead.
 */
export function startReactor<P>(reactor: Reactor<P>, opts: RunnerOptions): ReactorRunner {
  const { db, store } = opts;
  const mine = running.get(db) ?? new Set<string>();
  running.set(db, mine.add(reactor.name));
  const log = opts.log.child({ reactor: reactor.name });
  const batchSize = opts.batchSize ?? 200;
  const highWater = opts.highWater ?? 10_000;
  let stopped = false;
  let checkpoint = '';
  let live: Subscription | undefined;
  let queue: StoredEvent[] = [];
  let wake: (() => void) | undefined;

  /** Sleeps until `ms` pass or `wake` is called, whichever comes first. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      timer.unref();
      function finish() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = finish;
    });

  async function processBatch(batch: StoredEvent[]) {
    const handled = batch.filter((e) => reactor.handles(e));
    const gate = gates.get(db);
    const relevant = gate && handled.length > 0 ? await gate(handled) : handled;
    const prepared = relevant.length > 0 ? await reactor.prepare(relevant) : undefined;
    const last = batch[batch.length - 1]!.checkpoint;
    const from = checkpoint;
    await db.transaction(async (tx) => {
      const [row] = await tx.query<{ checkpoint: string }>('select checkpoint from checkpoints where name = $1 for update', [reactor.name]);
      if ((row?.checkpoint ?? '') !== from) throw new CheckpointMoved();
      if (prepared !== undefined) await reactor.commit(prepared, tx);
      await tx.query('update checkpoints set checkpoint = $2, updated_at = $3 where name = $1', [reactor.name, last, Date.now()]);
    });
    checkpoint = last;
    reactorEventsProcessed.inc({ reactor: reactor.name }, batch.length);
    if (prepared !== undefined) reactor.afterCommit?.(prepared);
  }

  /** Reads the log from the checkpoint until a short batch: bounded memory however far behind. */
  async function catchUp() {
    for (;;) {
      if (stopped) return;
      const batch = await store.readAll({ after: checkpoint || undefined, maxCount: batchSize });
      if (batch.length > 0) await processBatch(batch);
      if (batch.length < batchSize) return;
    }
  }

  /** Follows the live feed until it fails, falls too far behind, or the runner stops. */
  async function follow() {
    let failure: unknown;
    let overflow = false;
    queue = [];
    live = store.subscribe({ after: checkpoint || undefined, batchSize }).subscribe({
      next: (e) => {
        queue.push(e);
        if (queue.length > highWater) overflow = true;
        wake?.();
      },
      error: (err) => {
        failure = err;
        wake?.();
      },
    });
    try {
      while (!stopped && failure === undefined && !overflow) {
        if (queue.length === 0) {
          await sleep(60_000);
          continue;
        }
        const batch = queue.splice(0, batchSize);
        await processBatch(batch);
      }
      if (failure !== undefined) throw failure;
    } finally {
      live.unsubscribe();
      live = undefined;
      queue = [];
    }
  }

  const done = (async () => {
    while (!stopped) {
      try {
        checkpoint = await loadCheckpoint(db, reactor.name);
        await catchUp();
        await follow();
      } catch (err) {
        if (stopped) break;
        if (err instanceof CheckpointMoved) log.info('checkpoint moved by another instance; starting again from it');
        else log.error({ err }, 'reactor failed; starting again from its checkpoint');
        await sleep(opts.retryDelayMs ?? 1000);
      }
    }
  })();

  return {
    name: reactor.name,
    checkpoint: () => checkpoint,
    async stop() {
      stopped = true;
      live?.unsubscribe();
      wake?.();
      await done;
      mine.delete(reactor.name);
    },
  };
}

/** The reactors started on each database in this process and not stopped (for the health route). */
const running = new WeakMap<Db, Set<string>>();

/** Names of the reactors running on `db` in this process. */
export const runningReactors = (db: Db): string[] => [...(running.get(db) ?? [])].sort();
