import type { StoredEvent } from '../../aggregates/kernel/events.js';
import type { PendingEvent, Projection } from '../../projections/projection.js';
import { batchQueue } from '../db/batch-queue.js';
import type { Db, Sql } from '../db/db.js';
import { isSqlState } from '../db/sql-state.js';
import { applyProjections } from '../projections/apply.js';
import type { AppendOptions, ExpectedStreamRevision, NewEvent } from './port.js';
import { appendStatement } from './postgres.append.js';
import { appendManyParam, appendManySql, streamKey } from './postgres.append-many.js';
import { fusedStatements, fusedTogetherOf, fusedWriteOf, togetherStatement, type FusedStatement } from './postgres.fused-writes.js';
import { groupCommitSize } from '../metrics/metrics.js';
import { storedEvent, wrongRevision, type EventPlace } from './postgres.rows.js';

/** An append waiting for its commit. */
export interface PendingAppend {
  tenant: string;
  streamId: string;
  events: NewEvent[];
  payload: string;
  expected: ExpectedStreamRevision;
  inTransaction?: AppendOptions['inTransaction'];
  stateAfter?: unknown;
  /** More streams committed with this one, all or none (`AppendOptions.together`). */
  together?: readonly { streamId: string; events: NewEvent[]; payload: string; expected: ExpectedStreamRevision }[];
  /** `answer`: what a fused write answered for this append (`AppendResult.answer`). */
  resolve(events: StoredEvent[], answer?: unknown): void;
  reject(err: unknown): void;
}

export interface GroupCommitOptions {
  db: Db;
  /** Projections run inline, in the append's transaction. */
  projections: readonly Projection[];
  /** Appends committing at once. */
  maxConcurrentCommits: number;
  /** Appends one commit takes at most. */
  maxGroup: number;
  /** Called after each commit that appended something. */
  committed(): void;
}

const requestsOf = (group: readonly PendingAppend[]) =>
  appendManyParam(group.map((p) => ({ tenant: p.tenant, streamId: p.streamId, payload: p.payload, expected: p.expected })));

/**
 * The group-commit engine of the Postgres store (docs/architecture.md, write path steps 6 and 7):
 * appends wait in a batch queue, and each flush commits a group of them as one statement (fused
 * with a projection's writes where one takes them) or one transaction, falling back to one append
 * at a time when the group fails, so each caller gets only its own error.
 */
export function groupCommit({ db, projections, maxConcurrentCommits, maxGroup, committed }: GroupCommitOptions) {
  const handled = new Set(projections.flatMap((p) => p.handles));

  async function appendIn(sql: Sql, p: PendingAppend): Promise<StoredEvent[]> {
    const st = appendStatement(p.expected);
    const params = st.expected === null ? [p.tenant, p.streamId, p.payload] : [p.tenant, p.streamId, p.payload, st.expected];
    const rows = await sql.query<{ revision: number; position: number; tx_id: string }>(st.text, params, st.name);
    if (rows.length === 0) {
      const [current] = await sql.query<{ revision: number }>('select revision from streams where tenant = $1 and stream_id = $2', [p.tenant, p.streamId]);
      throw wrongRevision(p.streamId, p.expected, current?.revision ?? -1);
    }
    return rows.map((row, i) => storedEvent(p.events[i]!, { ...row, tenant: p.tenant, stream_id: p.streamId }));
  }

  const needsTx = (p: PendingAppend) => p.inTransaction !== undefined || p.together !== undefined || p.events.some((e) => handled.has(e.type));

  /** An append and the streams it takes with it (`together`), each as an append of its own. */
  const partsOf = (p: PendingAppend): PendingAppend[] => [p, ...(p.together ?? []).map((t) => ({ ...t, tenant: p.tenant, resolve: () => {}, reject: () => {} }))];

  /** A multi-stream append: one statement for every stream, in the transaction; any failed check fails it all. */
  async function appendTogether(tx: Sql, p: PendingAppend): Promise<StoredEvent[]> {
    const parts = partsOf(p);
    const stored = await appendGroup(tx, parts);
    const failed = parts.findIndex((_, i) => stored[i] === null);
    if (failed >= 0) {
      const part = parts[failed]!;
      const [current] = await tx.query<{ revision: number }>('select revision from streams where tenant = $1 and stream_id = $2', [part.tenant, part.streamId]);
      throw wrongRevision(part.streamId, part.expected, current?.revision ?? -1);
    }
    return stored.flatMap((out) => out ?? []);
  }

  /** One append on its own: one statement, or one transaction with its projections and hook. */
  async function appendAlone(p: PendingAppend) {
    try {
      const stored = needsTx(p)
        ? await db.transaction(async (tx) => {
            const out = p.together ? await appendTogether(tx, p) : await appendIn(tx, p);
            await applyProjections(projections, out, tx);
            if (p.inTransaction) await p.inTransaction(tx, out);
            return out;
          })
        : await appendIn(db, p);
      committed();
      p.resolve(stored);
    } catch (err) {
      p.reject(err);
    }
  }

  /**
   * `appendGroup` where appends take more streams with them (`together`): every stream of the
   * group in one statement. A multi-stream append whose every check passed gets all its events
   * (its own first); one with a failed check throws, so the transaction keeps none of them and
   * each append of the group is retried alone (which gives it its own error).
   */
  async function appendGroupTogether(tx: Sql, group: readonly PendingAppend[]): Promise<(StoredEvent[] | null)[]> {
    if (!group.some((p) => p.together)) return appendGroup(tx, group);
    const parts = group.map(partsOf);
    const stored = await appendGroup(tx, parts.flat());
    let k = 0;
    return parts.map((mine) => {
      const out = stored.slice(k, (k += mine.length));
      if (mine.length === 1) return out[0] ?? null;
      if (out.some((o) => o === null)) throw new Error('a multi-stream append of the group failed its check');
      return out.flatMap((o) => o!);
    });
  }

  /** The appends of distinct streams in one statement; null for an append whose revision check failed. */
  async function appendGroup(sql: Sql, group: readonly PendingAppend[]): Promise<(StoredEvent[] | null)[]> {
    const rows = await sql.query<EventPlace>(appendManySql, [requestsOf(group)], 'append_many');
    return storedOf(group, rows);
  }

  /** Each append's stored events from the statement's rows (in position order); null where none were appended. */
  function storedOf(group: readonly PendingAppend[], rows: readonly EventPlace[]): (StoredEvent[] | null)[] {
    const byStream = new Map<string, EventPlace[]>();
    for (const row of rows) {
      const key = streamKey(row.tenant, row.stream_id);
      byStream.set(key, [...(byStream.get(key) ?? []), row]);
    }
    return group.map((p) => byStream.get(streamKey(p.tenant, p.streamId))?.map((row, i) => storedEvent(p.events[i]!, row)) ?? null);
  }

  // Writes that projections make in the append statement (postgres.fused-writes.ts).
  const fusers = db.kind === 'postgres' ? fusedStatements(projections) : [];

  /**
   * Appends whose events one projection writes with the append: one statement, committed on its
   * own, instead of a transaction of four round trips. A statement PostgreSQL refused wrote
   * nothing: the group then commits the usual way (which gives each its own error).
   */
  async function flushFused(fuser: FusedStatement, group: PendingAppend[], events: PendingEvent[]) {
    let rows: EventPlace[];
    const answers = new Map<string, unknown>();
    try {
      const input = fuser.write.input(events);
      const [row] = await db.query<{ appended: EventPlace[]; answers?: { tenant: string; stream_id: string; answer: unknown }[] | null }>(fuser.text, [requestsOf(group), input], fuser.write.name);
      rows = row!.appended;
      for (const a of row!.answers ?? []) answers.set(streamKey(a.tenant, a.stream_id), a.answer);
    } catch (err) {
      if (isSqlState(err)) return flushInTransaction(group);
      for (const p of group) p.reject(err);
      return;
    }
    committed();
    await settle(group, storedOf(group, rows), answers);
  }

  // The statements of multi-stream appends whose every stream fused writes take, by the writes' indexes.
  const togetherStatements = new Map<string, { name: string; text: string }>();

  /**
   * Multi-stream appends whose every stream a fused write takes (a form submission): every stream
   * of every such append of the group, and their rows, in one statement committed on its own. A
   * stream whose check failed fails the statement (all or none), as does anything PostgreSQL
   * refuses: the appends then commit the usual way, which gives each its own error.
   */
  async function flushTogether(group: PendingAppend[], writes: Map<number, PendingEvent[]>) {
    const indexes = [...writes.keys()].sort((a, b) => a - b);
    const key = indexes.join('_');
    let st = togetherStatements.get(key);
    if (!st) togetherStatements.set(key, (st = togetherStatement(fusers, indexes)));
    const parts = group.map(partsOf);
    let rows: EventPlace[];
    try {
      const inputs = indexes.map((k) => fusers[k]!.write.input(writes.get(k)!));
      const [row] = await db.query<{ appended: EventPlace[] }>(st.text, [requestsOf(parts.flat()), ...inputs], st.name);
      rows = row!.appended;
    } catch (err) {
      if (isSqlState(err)) return flushInTransaction(group);
      for (const p of group) p.reject(err);
      return;
    }
    committed();
    const stored = storedOf(parts.flat(), rows);
    let k = 0;
    await settle(group, parts.map((mine) => stored.slice(k, (k += mine.length)).flatMap((out) => out ?? [])));
  }

  /**
   * A group commit: the appends a fused write takes by it (a statement per write), the
   * multi-stream appends fused writes take in one statement, the others in one transaction.
   */
  async function flush(group: PendingAppend[]) {
    groupCommitSize.observe(group.length);
    const rest: PendingAppend[] = [];
    const parts = new Map<number, { appends: PendingAppend[]; events: PendingEvent[] }>();
    const together: PendingAppend[] = [];
    const togetherWrites = new Map<number, PendingEvent[]>();
    for (const p of group) {
      const all = p.together ? fusedTogetherOf(fusers, p) : null;
      if (all) {
        together.push(p);
        for (const [k, events] of all) togetherWrites.set(k, [...(togetherWrites.get(k) ?? []), ...events]);
        continue;
      }
      const taken = p.together ? null : fusedWriteOf(fusers, p);
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
      ...(together.length > 0 ? [flushTogether(together, togetherWrites)] : []),
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
            const stored = await appendGroupTogether(tx, group);
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
      if (committing || (!inTx && !isSqlState(err))) {
        for (const p of group) p.reject(err);
        return;
      }
      // In submission order: of two appends claiming one unique value, the first still wins.
      for (const p of group) await appendAlone(p);
      return;
    }
    committed();
    await settle(group, outcome);
  }

  /** Resolves each append with its events (and a fused write's answer), or rejects it with the revision its stream is at. */
  async function settle(group: readonly PendingAppend[], outcome: (StoredEvent[] | null)[], answers?: ReadonlyMap<string, unknown>) {
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
      if (out) p.resolve(out, answers?.get(streamKey(p.tenant, p.streamId)));
      else p.reject(wrongRevision(p.streamId, p.expected, actual.get(streamKey(p.tenant, p.streamId)) ?? -1));
    }
  }

  return batchQueue<PendingAppend>({ maxInFlight: maxConcurrentCommits, maxBatch: maxGroup, key: (p) => streamKey(p.tenant, p.streamId), flush });
}
