import type { FastifyBaseLogger } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { getRecord } from '../../read-models/records.queries.js';
import { linksOfRecords } from '../../read-models/record-links.queries.js';
import { relationOf } from '../../read-models/relations.queries.js';
import { activeSyncsOf, type SyncRow } from '../../read-models/syncs.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { Reactor } from '../reactors/runner.js';
import type { RecordsService } from '../records/records.service.js';
import { changedProperties, foldRecord, recordUuidOf } from '../webhooks/occurrences.js';

/** How far a causation chain is followed before a sync gives up writing (a chain this long is a loop). */
export const MAX_CHAIN = 32;

/** The id of an event, as sync writes carry it in causationId: `<streamId>@<revision>` (same tenant). */
export const eventId = (e: Pick<StoredEvent, 'streamId' | 'revision'>) => `${e.streamId}@${e.revision}`;

function parseEventId(id: string | null): { streamId: string; revision: number } | null {
  const at = id?.lastIndexOf('@') ?? -1;
  if (!id || at <= 0) return null;
  const revision = Number(id.slice(at + 1));
  return Number.isInteger(revision) && revision >= 0 ? { streamId: id.slice(0, at), revision } : null;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export interface SyncDeps {
  db: Db;
  store: EventStore;
  records: Pick<RecordsService, 'update'>;
  log: FastifyBaseLogger;
}

/**
 * The sync reactor: when a source record is created or updated, or connected to a record through
 * a sync's relation, the mapped values are written to the connected target records through the
 * records' command path, with the source event as causationId. A write is skipped when the
 * target already holds the values (so a replay after a crash changes nothing) and when the target
 * record is already in the source event's causation chain: A -> B -> A stops at A.
 */
export function syncsReactor(deps: SyncDeps): Reactor<void> {
  const { db, store, records, log } = deps;

  /** The streams of the events that led to `event`, itself included, following causationId. */
  async function chainStreams(event: StoredEvent): Promise<Set<string> | null> {
    const streams = new Set([event.streamId]);
    let cause = parseEventId(event.metadata.causationId);
    for (let depth = 0; cause; depth++) {
      if (depth >= MAX_CHAIN) return null;
      streams.add(cause.streamId);
      const [parent] = await store.readStream(event.tenant, cause.streamId, { fromRevision: cause.revision, maxCount: 1 });
      if (!parent || parent.revision !== cause.revision) break;
      cause = parseEventId(parent.metadata.causationId);
    }
    return streams;
  }

  /** Properties of a record that events after `since` (occurredAt) set: a lagging copy must not overwrite them. */
  async function changedSince(tenant: string, recordUuid: string, since: number): Promise<Set<string>> {
    const names = new Set<string>();
    const recent = await store.readStream(tenant, `record-${recordUuid}`, { direction: 'backwards', maxCount: 100 });
    for (const e of recent) {
      if (e.metadata.occurredAt <= since) break;
      const d = e.data as { changes?: Record<string, unknown>; properties?: Record<string, unknown> };
      for (const name of Object.keys(d.changes ?? d.properties ?? {})) names.add(name);
    }
    return names;
  }

  /** Which end of the sync's relation the source records sit at. */
  async function sourceSide(tenant: string, sync: SyncRow): Promise<'from' | 'to' | null> {
    const relation = await relationOf(db, tenant, sync.relation_uuid);
    if (!relation || relation.deleted_at !== null) return null;
    return relation.from_object_uuid === sync.source_object_uuid ? 'from' : relation.to_object_uuid === sync.source_object_uuid ? 'to' : null;
  }

  /** Writes `values` to the target unless it holds them already or is in the chain. */
  async function write(event: StoredEvent, sync: SyncRow, targetUuid: string, values: Record<string, unknown>, chain: Set<string> | null) {
    if (!chain) {
      log.warn({ tenant: event.tenant, syncUuid: sync.sync_uuid, cause: eventId(event) }, 'sync skipped: causation chain too long');
      return;
    }
    if (chain.has(`record-${targetUuid}`)) return;
    const target = await getRecord(db, event.tenant, targetUuid);
    if (!target || target.deleted_at !== null) return;
    if (target.primary_object_uuid !== sync.target_object_uuid && !target.extends.includes(sync.target_object_uuid)) return;
    let diff = Object.fromEntries(Object.entries(values).filter(([name, value]) => !same(target.vals[name], value)));
    if (Object.keys(diff).length === 0) return;
    // A value the target got after the source event is newer than the one to copy: it stays.
    const newer = await changedSince(event.tenant, targetUuid, event.metadata.occurredAt);
    diff = Object.fromEntries(Object.entries(diff).filter(([name]) => !newer.has(name)));
    if (Object.keys(diff).length === 0) return;
    const ctx: CommandContext = {
      tenant: event.tenant,
      userUuid: event.metadata.userUuid,
      requestId: event.metadata.requestId,
      correlationId: event.metadata.correlationId,
      causationId: eventId(event),
      now: Date.now(),
    };
    try {
      await records.update(ctx, targetUuid, diff);
    } catch (err) {
      // A value the target refuses (required, unique, a rule of its own): skipped and told, not retried forever.
      if (!(err instanceof DomainError) || err.code === 'WRONG_EXPECTED_REVISION') throw err;
      log.warn({ tenant: event.tenant, syncUuid: sync.sync_uuid, targetUuid, code: err.code, message: err.message }, 'sync write refused by the target record');
    }
  }

  /**
   * The mapped values of a source record: on create and connect those it holds (an empty source
   * property does not clear the target), on update those the update changed (a cleared value
   * clears the target).
   */
  function mappedValues(sync: SyncRow, properties: Record<string, unknown>, changed?: readonly string[]) {
    const values: Record<string, unknown> = {};
    for (const m of sync.mappings) {
      const value = properties[m.source] ?? null;
      if (changed ? !changed.includes(m.source) : value === null) continue;
      values[m.target] = value;
    }
    return values;
  }

  async function onRecordEvent(event: StoredEvent, syncs: readonly SyncRow[]) {
    const recordUuid = recordUuidOf(event.streamId);
    if (!recordUuid) return;
    const history = await store.readStream(event.tenant, event.streamId, { fromRevision: 0, maxCount: event.revision + 1 });
    const record = foldRecord(history);
    if (!record) return;
    const objects = new Set([record.objectUuid, ...record.extends]);
    const relevant = syncs.filter((s) => objects.has(s.source_object_uuid));
    if (relevant.length === 0) return;
    const changed = event.type === 'RecordUpdated' ? changedProperties(event) : undefined;
    let chain: Set<string> | null | undefined;
    const links = await linksOfRecords(db, event.tenant, [recordUuid]);
    for (const sync of relevant) {
      const values = mappedValues(sync, record.properties, changed);
      if (Object.keys(values).length === 0) continue;
      const side = await sourceSide(event.tenant, sync);
      if (!side) continue;
      const targets = links
        .filter((l) => l.relation_uuid === sync.relation_uuid && (side === 'from' ? l.from_record === recordUuid : l.to_record === recordUuid))
        .map((l) => (side === 'from' ? l.to_record : l.from_record));
      if (targets.length === 0) continue;
      if (chain === undefined) chain = await chainStreams(event);
      for (const target of targets) await write(event, sync, target, values, chain);
    }
  }

  async function onConnected(event: StoredEvent, syncs: readonly SyncRow[]) {
    const d = event.data as { relationUuid: string; fromRecordUuid: string; toRecordUuid: string };
    for (const sync of syncs.filter((s) => s.relation_uuid === d.relationUuid)) {
      const side = await sourceSide(event.tenant, sync);
      if (!side) continue;
      const [sourceUuid, targetUuid] = side === 'from' ? [d.fromRecordUuid, d.toRecordUuid] : [d.toRecordUuid, d.fromRecordUuid];
      const source = await getRecord(db, event.tenant, sourceUuid);
      if (!source || source.deleted_at !== null) continue;
      if (source.primary_object_uuid !== sync.source_object_uuid && !source.extends.includes(sync.source_object_uuid)) continue;
      await write(event, sync, targetUuid, mappedValues(sync, source.vals), await chainStreams(event));
    }
  }

  return {
    name: 'reactor:syncs',
    handles: (e) => e.type === 'RecordCreated' || e.type === 'RecordUpdated' || e.type === 'RecordsConnected',
    async prepare(events) {
      const byTenant = new Map<string, SyncRow[]>();
      for (const event of events) {
        let all = byTenant.get(event.tenant);
        if (!all) byTenant.set(event.tenant, (all = await activeSyncsOf(db, event.tenant)));
        // A sync acts on what happens after it is created.
        const syncs = all.filter((s) => s.created_at <= event.metadata.occurredAt);
        if (syncs.length === 0) continue;
        if (event.type === 'RecordsConnected') await onConnected(event, syncs);
        else await onRecordEvent(event, syncs);
      }
    },
    // Sync writes are commands (their own appends), made idempotent by the diff: nothing to keep here.
    async commit() {},
  };
}
