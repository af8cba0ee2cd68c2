import { Subject } from 'rxjs';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { PendingEvent, Projection } from '../../projections/projection.js';
import type { Db, Sql } from '../db/db.js';
import { catchUpSubscription } from './catch-up.js';
import type { AppendOptions, EventStore, ExpectedRevision, NewEvent, ReadAllOptions, ReadStreamOptions } from './port.js';
import { applyProjections } from '../projections/apply.js';
import { appendStatement } from './postgres.append.js';
import { appendManyParam, appendManySql, streamKey } from './postgres.append-many.js';
import { fusedStatements, fusedWriteOf, type FusedStatement } from './postgres.fused-writes.js';
import { batchQueue } from '../db/batch-queue.js';
import { detached } from '../db/query-signal.js';

const CHANNEL = 'platform_events';
const START = '0:0';
// Appends within this window share one NOTIFY: other processes learn of them within it.
const NOTIFY_COALESCE_MS = 20;

interface EventRow {
  position: number;
  tx_id: string;
  tenant: string;
  stream_id: string;
  revision: number;
  type: string;
  version: number;
  data: unknown;
  metadata: StoredEvent['metadata'];
}

// The text copy of the xid8 gets its own name: ORDER BY transaction_id must sort the xid8, not text.
const columns = 'position, transaction_id::text as tx_id, tenant, stream_id, revision, type, version, data, metadata';

const readAllSql = `select ${columns} from events
  where (transaction_id, position) > ($1::text::xid8, $2::bigint)
    and transaction_id < (select pg_snapshot_xmin(pg_current_snapshot()))
  order by events.transaction_id, events.position limit $3`;

/** A row of `columns` read as an array (the hot path of the global log). */
function fromArray(r: unknown[]): StoredEvent {
  const metadata = r[8] as StoredEvent['metadata'];
  return {
    type: r[5] as string,
    version: r[6] as number,
    data: r[7],
    metadata,
    tenant: r[2] as string,
    streamId: r[3] as string,
    revision: r[4] as number,
    position: r[0] as number,
    checkpoint: `${r[1] as string}:${r[0] as number}`,
  };
}

function toStored(row: EventRow): StoredEvent {
  return {
    type: row.type,
    version: row.version,
    data: row.data,
    metadata: row.metadata,
    tenant: row.tenant,
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
    checkpoint: `${row.tx_id}:${row.position}`,
  };
}

function parseCheckpoint(checkpoint: string | undefined): [string, number] {
  const [tx, pos] = (checkpoint ?? START).split(':');
  if (!/^\d+$/.test(tx ?? '') || !/^\d+$/.test(pos ?? '')) {
    throw new DomainError('VALIDATION_FAILED', `bad checkpoint ${checkpoint}`, [
      { message: `checkpoint ${checkpoint} is not of the form <txid>:<position>`, type: 'VALIDATION', correctionSuggestion: 'Pass a checkpoint taken from an event' },
    ]);
  }
  return [tx!, Number(pos)];
}

function wrongRevision(streamId: string, expected: ExpectedRevision, actual: number) {
  return new DomainError('WRONG_EXPECTED_REVISION', `stream ${streamId} is at revision ${actual}, not ${String(expected)}`, [
    {
      message: `The resource changed since revision ${String(expected)}; it is now at revision ${actual}`,
      type: 'GENERAL',
      correctionSuggestion: 'Read the resource again and retry with its current revision',
    },
  ], { actualRevision: actual });
}

export interface PostgresStoreOptions {
  db: Db;
  /** Projections run inline, in the append's transaction. */
  projections?: readonly Projection[];
  pollMs?: number;
  /** Group commit: appends committing at once (default 4 on PostgreSQL, 1 on PGlite's one connection). */
  maxConcurrentCommits?: number;
  /** Group commit: appends one commit takes at most (default 64). */
  maxGroup?: number;
}

/** A row the append statement returns for each event. */
interface AppendedRow {
  tenant: string;
  stream_id: string;
  revision: number;
  position: number;
  tx_id: string;
}

const requestsOf = (group: readonly PendingAppend[]) =>
  appendManyParam(group.map((p) => ({ tenant: p.tenant, streamId: p.streamId, payload: p.payload, expected: p.expected })));

interface PendingAppend {
  tenant: string;
  streamId: string;
  events: NewEvent[];
  payload: string;
  expected: ExpectedRevision;
  inTransaction?: AppendOptions['inTransaction'];
  stateAfter?: unknown;
  resolve(events: StoredEvent[]): void;
  reject(err: unknown): void;
}

/** The Postgres (and PGlite) adapter of the event-store port. */
export async function createPostgresEventStore({ db, projections = [], pollMs = 500, maxConcurrentCommits, maxGroup = 64 }: PostgresStoreOptions): Promise<EventStore> {
  const wake = new Subject<void>();
  const handled = new Set(projections.flatMap((p) => p.handles));
  let notifyScheduled = false;
  let closed = false;

  // Other processes append too: their NOTIFY wakes our subscribers.
  const unlisten = await db.listen(CHANNEL, () => wake.next());

  // One NOTIFY per burst of appends, sent after commit: NOTIFY inside every append would
  // serialise all commits on the notification queue lock.
  // Subscribers woken here read for everyone: they must not run as part of the appending request.
  const announce = () => detached(() => {
    wake.next();
    if (notifyScheduled || closed) return;
    notifyScheduled = true;
    setTimeout(() => {
      notifyScheduled = false;
      if (!closed) db.query(`select pg_notify('${CHANNEL}', '')`).catch(() => {});
    }, NOTIFY_COALESCE_MS).unref();
  });

  async function appendIn(sql: Sql, tenant: string, streamId: string, events: NewEvent[], expected: ExpectedRevision, payload: string) {
    const st = appendStatement(expected);
    const params = st.expected === null ? [tenant, streamId, payload] : [tenant, streamId, payload, st.expected];
    const rows = await sql.query<{ revision: number; position: number; tx_id: string }>(st.text, params, st.name);
    if (rows.length === 0) {
      const [current] = await sql.query<{ revision: number }>('select revision from streams where tenant = $1 and stream_id = $2', [tenant, streamId]);
      throw wrongRevision(streamId, expected, current?.revision ?? -1);
    }
    return rows.map((row, i): StoredEvent => ({
      ...events[i]!,
      tenant,
      streamId,
      revision: row.revision,
      position: row.position,
      checkpoint: `${row.tx_id}:${row.position}`,
    }));
  }

  const needsTx = (p: PendingAppend) => p.inTransaction !== undefined || p.events.some((e) => handled.has(e.type));

  /** One append on its own: one statement, or one transaction with its projections and hook. */
  async function appendAlone(p: PendingAppend) {
    try {
      const stored = needsTx(p)
        ? await db.transaction(async (tx) => {
            const out = await appendIn(tx, p.tenant, p.streamId, p.events, p.expected, p.payload);
            await applyProjections(projections, out, tx);
            if (p.inTransaction) await p.inTransaction(tx, out);
            return out;
          })
        : await appendIn(db, p.tenant, p.streamId, p.events, p.expected, p.payload);
      announce();
      p.resolve(stored);
    } catch (err) {
      p.reject(err);
    }
  }

  /** The appends of distinct streams in one statement; null for an append whose revision check failed. */
  async function appendGroup(sql: Sql, group: readonly PendingAppend[]): Promise<(StoredEvent[] | null)[]> {
    const rows = await sql.query<AppendedRow>(appendManySql, [requestsOf(group)], 'append_many');
    return storedOf(group, rows);
  }

  /** Each append's stored events from the statement's rows (in position order); null where none were appended. */
  function storedOf(group: readonly PendingAppend[], rows: readonly AppendedRow[]): (StoredEvent[] | null)[] {
    const byStream = new Map<string, AppendedRow[]>();
    for (const row of rows) {
      const key = streamKey(row.tenant, row.stream_id);
      byStream.set(key, [...(byStream.get(key) ?? []), row]);
    }
    return group.map((p) => {
      const mine = byStream.get(streamKey(p.tenant, p.streamId));
      if (!mine) return null;
      return mine.map((row, i): StoredEvent => ({
        ...p.events[i]!,
        tenant: p.tenant,
        streamId: p.streamId,
        revision: row.revision,
        position: row.position,
        checkpoint: `${row.tx_id}:${row.position}`,
      }));
    });
  }

  // Writes that projections make in the append statement (postgres.fused-writes.ts).
  const fusers = db.kind === 'postgres' ? fusedStatements(projections) : [];

  /**
   * Appends whose events one projection writes with the append: one statement, committed on its
   * own, instead of a transaction of four round trips. A statement PostgreSQL refused wrote
   * nothing: the group then commits the usual way (which gives each its own error).
   */
  async function flushFused(fuser: FusedStatement, group: PendingAppend[], events: PendingEvent[]) {
    let rows: AppendedRow[];
    try {
      const input = fuser.write.input(events);
      const [row] = await db.query<{ appended: AppendedRow[] }>(fuser.text, [requestsOf(group), input], fuser.write.name);
      rows = row!.appended;
    } catch (err) {
      if (/^[0-9A-Z]{5}$/.test(String((err as { code?: unknown }).code))) return flushInTransaction(group);
      for (const p of group) p.reject(err);
      return;
    }
    announce();
    await settle(group, storedOf(group, rows));
  }

  /** A group commit: the appends a fused write takes by it (a statement per write), the others in one transaction. */
  async function flush(group: PendingAppend[]) {
    const rest: PendingAppend[] = [];
    const parts = new Map<number, { appends: PendingAppend[]; events: PendingEvent[] }>();
    for (const p of group) {
      const taken = fusedWriteOf(fusers, p);
      if (!taken) {
        rest.push(p);
        continue;
      }
      const part = parts.get(taken.index) ?? { appends: [], events: [] };
      parts.set(taken.index, part);
      part.appends.push(p);
      part.events.push(...taken.events);
    }
    await Promise.all([
      ...(rest.length > 0 ? [flushInTransaction(rest)] : []),
      ...[...parts].map(([k, part]) => flushFused(fusers[k]!, part.appends, part.events)),
    ]);
  }

  /**
   * A group commit: every append of the group in one statement and one transaction (with the
   * projections and hooks of each). If anything in it fails (a projection's constraint, a hook,
   * a deadlock), nothing of it is kept and each append runs alone, so that only its own error
   * reaches its caller.
   */
  async function flushInTransaction(group: PendingAppend[]) {
    if (group.length === 1) return appendAlone(group[0]!);
    let outcome: (StoredEvent[] | null)[];
    // Past this point only COMMIT can fail, and then nobody knows whether the group committed:
    // its appends are not run again (an `any` append would be written twice), they get the error.
    let committing = false;
    const inTx = group.some(needsTx);
    try {
      outcome = inTx
        ? await db.transaction(async (tx) => {
            const stored = await appendGroup(tx, group);
            // The group's events in order (a run of creates is one statement), then each hook.
            await applyProjections(projections, stored.flatMap((out) => out ?? []), tx);
            for (const [i, p] of group.entries()) {
              const out = stored[i];
              if (out && p.inTransaction) await p.inTransaction(tx, out);
            }
            committing = true;
            return stored;
          })
        : await appendGroup(db, group);
    } catch (err) {
      // A statement outside a transaction that PostgreSQL refused (an SQLSTATE) wrote nothing;
      // any other failure of it (a lost connection) may have come after its commit.
      if (committing || (!inTx && !/^[0-9A-Z]{5}$/.test(String((err as { code?: unknown }).code)))) {
        for (const p of group) p.reject(err);
        return;
      }
      // In submission order: of two appends claiming one unique value, the first still wins.
      for (const p of group) await appendAlone(p);
      return;
    }
    announce();
    await settle(group, outcome);
  }

  /** Resolves each append with its events, or rejects it with the revision its stream is at. */
  async function settle(group: readonly PendingAppend[], outcome: (StoredEvent[] | null)[]) {
    const failed = group.filter((_, i) => outcome[i] === null);
    const actual = new Map<string, number>();
    if (failed.length > 0) {
      const rows = await db
        .query<{ tenant: string; stream_id: string; revision: number }>(
          'select tenant, stream_id, revision from streams where (tenant, stream_id) in (select * from unnest($1::text[], $2::text[]))',
          [failed.map((p) => p.tenant), failed.map((p) => p.streamId)],
        )
        .catch(() => []);
      for (const r of rows) actual.set(streamKey(r.tenant, r.stream_id), r.revision);
    }
    for (const [i, p] of group.entries()) {
      const out = outcome[i];
      if (out) p.resolve(out);
      else p.reject(wrongRevision(p.streamId, p.expected, actual.get(streamKey(p.tenant, p.streamId)) ?? -1));
    }
  }

  const commits = batchQueue<PendingAppend>({
    maxInFlight: maxConcurrentCommits ?? (db.kind === 'pglite' ? 1 : 4),
    maxBatch: maxGroup,
    key: (p) => streamKey(p.tenant, p.streamId),
    flush,
  });

  async function readAll(options: ReadAllOptions = {}) {
    const [tx, pos] = parseCheckpoint(options.after);
    const rows = await db.queryRows(readAllSql, [tx, pos, options.maxCount ?? 1000], 'events_read_all');
    return rows.map(fromArray);
  }

  return {
    name: db.kind === 'pglite' ? 'pglite' : 'postgres',
    async append(tenant, streamId, events, options: AppendOptions) {
      if (events.length === 0) throw new Error('append needs at least one event');
      const payload = JSON.stringify(events.map(({ type, version, data, metadata }) => ({ type, version, data, metadata })));
      const stored = await new Promise<StoredEvent[]>((resolve, reject) =>
        commits.submit({ tenant, streamId, events, payload, expected: options.expectedRevision, inTransaction: options.inTransaction, stateAfter: options.stateAfter, resolve, reject }),
      );
      return { nextRevision: stored[stored.length - 1]!.revision, events: stored };
    },

    async readStream(tenant, streamId, options: ReadStreamOptions = {}) {
      const backwards = options.direction === 'backwards';
      const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
      const rows = await db.query<EventRow>(
        `select ${columns} from events where tenant = $1 and stream_id = $2 and revision ${backwards ? '<=' : '>='} $3
         order by revision ${backwards ? 'desc' : 'asc'} limit $4`,
        [tenant, streamId, from, options.maxCount ?? 1_000_000],
      );
      return rows.map(toStored);
    },

    readAll,

    subscribe(options = {}) {
      return catchUpSubscription({ readAll, wake, pollMs }, options.after, options.batchSize ?? 500);
    },

    async close() {
      closed = true;
      wake.complete();
      await unlisten();
    },
  };
}
