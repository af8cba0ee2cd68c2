import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AppendExpectedRevision,
  type JSONRecordedEvent,
  type Position,
} from '@eventstore/db-client';
import { Observable } from 'rxjs';
import type { EventMetadata, StoredEvent } from '../../aggregates/kernel/events.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { Projection } from '../../projections/projection.js';
import type { Db } from '../db/db.js';
import { applyProjections } from '../projections/apply.js';
import type { EventStore, ExpectedStreamRevision } from './port.js';

const WAIT_FOR_PROJECTIONS_MS = 5000;
const RUNNER = 'eventstoredb-projections';

// A tenant's streams live under its own prefix, so names are unique per tenant.
const streamName = (tenant: string, streamId: string) => `t-${tenant}.${streamId}`;
const encode = (p: Position) => `${p.commit}/${p.prepare}`;
const decode = (c: string): Position => {
  const [commit, prepare] = c.split('/');
  return { commit: BigInt(commit!), prepare: BigInt(prepare!) };
};

function expectedOf(e: ExpectedStreamRevision): AppendExpectedRevision {
  if (e === 'no_stream') return NO_STREAM;
  if (e === 'stream_exists') return STREAM_EXISTS;
  if (e === 'any') return ANY;
  return e < 0 ? NO_STREAM : BigInt(e);
}

function toStored(event: JSONRecordedEvent): StoredEvent | undefined {
  const meta = event.metadata as { platform?: { metadata: EventMetadata; streamId: string; version: number } } | undefined;
  if (!meta?.platform || !event.position) return undefined;
  return {
    type: event.type,
    version: meta.platform.version,
    data: event.data,
    metadata: meta.platform.metadata,
    tenant: meta.platform.metadata.tenant,
    streamId: meta.platform.streamId,
    revision: Number(event.revision),
    position: Number(event.position.commit),
    checkpoint: encode(event.position),
  };
}

/**
 * The EventStoreDB / KurrentDB adapter. Projections run from a checkpointed subscription to $all
 * into Postgres; an append waits (bounded) until they have passed it, so callers read their writes.
 */
export async function createEventStoreDbStore(opts: { connectionString: string; db: Db; projections: readonly Projection[] }): Promise<EventStore> {
  const client = EventStoreDBClient.connectionString`${opts.connectionString}`;
  const { db, projections } = opts;
  const [row] = await db.query<{ checkpoint: string }>('select checkpoint from checkpoints where name = $1', [RUNNER]);
  let processed: Position | undefined = row ? decode(row.checkpoint) : undefined;
  const waiters = new Set<() => void>();

  const subscription = client.subscribeToAll({ fromPosition: processed ?? START, filter: excludeSystemEvents() });
  const running = (async () => {
    for await (const resolved of subscription) {
      const stored = resolved.event ? toStored(resolved.event as JSONRecordedEvent) : undefined;
      if (!stored || !resolved.event?.position) continue;
      const position = resolved.event.position;
      await db.transaction(async (tx) => {
        await applyProjections(projections, [stored], tx);
        await tx.query(
          `insert into checkpoints (name, checkpoint, updated_at) values ($1, $2, $3)
           on conflict (name) do update set checkpoint = excluded.checkpoint, updated_at = excluded.updated_at`,
          [RUNNER, encode(position), Date.now()],
        );
      });
      processed = position;
      for (const wake of waiters) wake();
    }
  })().catch(() => {});

  async function waitFor(position: Position) {
    const deadline = Date.now() + WAIT_FOR_PROJECTIONS_MS;
    while (!processed || processed.commit < position.commit) {
      if (Date.now() > deadline) throw new Error('projections did not catch up with the append in time');
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
        setTimeout(wake, 50).unref();
      });
    }
  }

  const store: EventStore = {
    name: 'eventstoredb',
    async append(tenant, streamId, events, options) {
      if (options.inTransaction) throw new Error('inTransaction is not supported on EventStoreDB');
      if (options.together?.length) throw new Error('an atomic multi-stream append (together) is not supported on EventStoreDB');
      try {
        const result = await client.appendToStream(
          streamName(tenant, streamId),
          events.map((e) => jsonEvent({ type: e.type, data: e.data as never, metadata: { platform: { metadata: e.metadata, streamId, version: e.version } } })),
          { expectedRevision: expectedOf(options.expectedStreamRevision) },
        );
        const next = Number(result.nextExpectedRevision);
        if (result.position) await waitFor(result.position);
        const stored = events.map((e, i): StoredEvent => ({
          ...e,
          tenant,
          streamId,
          revision: next - events.length + 1 + i,
          position: Number(result.position?.commit ?? 0),
          checkpoint: result.position ? encode(result.position) : '',
        }));
        return { nextRevision: next, events: stored };
      } catch (err) {
        if (err instanceof WrongExpectedVersionError) {
          const actual = typeof err.actualVersion === 'bigint' ? Number(err.actualVersion) : -1;
          throw new DomainError('WRONG_EXPECTED_REVISION', `stream ${streamId} is at revision ${actual}`, [
            { message: `The resource is now at revision ${actual}`, type: 'GENERAL', correctionSuggestion: 'Read the resource again and retry with its current revision' },
          ], { actualRevision: actual });
        }
        throw err;
      }
    },
    async readStream(tenant, streamId, options = {}) {
      const backwards = options.direction === 'backwards';
      const out: StoredEvent[] = [];
      try {
        const fromRevision = options.fromRevision === undefined ? (backwards ? END : START) : BigInt(options.fromRevision);
        for await (const r of client.readStream(streamName(tenant, streamId), {
          direction: backwards ? BACKWARDS : FORWARDS,
          fromRevision,
          maxCount: options.maxCount ?? 1_000_000,
        })) {
          const s = r.event && toStored(r.event as JSONRecordedEvent);
          if (s) out.push(s);
        }
      } catch (err) {
        if (err instanceof StreamNotFoundError) return [];
        throw err;
      }
      return out;
    },
    async readAll(options = {}) {
      const out: StoredEvent[] = [];
      const max = options.maxCount ?? 1000;
      const from = options.after ? decode(options.after) : START;
      for await (const r of client.readAll({ fromPosition: from, maxCount: max + 1, direction: FORWARDS })) {
        const s = r.event && toStored(r.event as JSONRecordedEvent);
        if (!s || s.checkpoint === options.after) continue;
        out.push(s);
        if (out.length >= max) break;
      }
      return out;
    },
    subscribe(options = {}) {
      return new Observable<StoredEvent>((subscriber) => {
        const sub = client.subscribeToAll({ fromPosition: options.after ? decode(options.after) : START, filter: excludeSystemEvents() });
        (async () => {
          for await (const r of sub) {
            const s = r.event && toStored(r.event as JSONRecordedEvent);
            if (s && s.checkpoint !== options.after) subscriber.next(s);
          }
        })().catch((err) => subscriber.error(err));
        return () => void sub.unsubscribe();
      });
    },
    async close() {
      await subscription.unsubscribe();
      await running;
      await client.dispose();
    },
  };
  return store;
}
