import type { FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { RECORD_STREAM_PREFIX } from '../../aggregates/record/record.events.js';
import type { Sql } from '../../ports/sql.js';
import { objectRecordUuids, recordEventsAfter, recordsEventsTo, safeHead, streamEventsTo, type LoggedRecordEvent } from './as-of.queries.js';

/**
 * A record as it was after one of its events: what the evaluator reads (FilterableRecord) and
 * what its response shows. The fold of the records projection: createdAt/By from the create,
 * updatedAt/By from the last create or update, deletedAt/By from the last archive (a restore
 * clears them), the revision of the last event.
 */
export interface RecordThen extends FilterableRecord {
  uuid: string;
  createdAt: number;
  updatedAt: number;
  createdBy: string | null;
  updatedBy: string | null;
  deletedAt: number | null;
  deletedBy: string | null;
  properties: Readonly<Record<string, unknown>>;
  revision: number;
  primaryObjectUuid: string;
  objectName: string;
  extends: readonly string[];
  userUuid: string | null;
}

/** The state after `e`, from the state before it (null before the record's first event). */
export function foldRecordEvent(before: RecordThen | null, e: LoggedRecordEvent, revision: number): RecordThen | null {
  const d = e.data;
  if (e.type === 'RecordCreated') {
    return {
      uuid: String(d.uuid).toLowerCase(),
      createdAt: e.occurredAt,
      updatedAt: e.occurredAt,
      createdBy: e.userUuid,
      updatedBy: e.userUuid,
      deletedAt: null,
      deletedBy: null,
      properties: (d.properties ?? {}) as Record<string, unknown>,
      revision,
      primaryObjectUuid: String(d.objectUuid),
      objectName: String(d.objectName),
      extends: (d.extends as string[] | undefined) ?? [],
      userUuid: null,
    };
  }
  if (!before) return null;
  switch (e.type) {
    case 'RecordUpdated': {
      const properties: Record<string, unknown> = { ...before.properties };
      for (const [name, change] of Object.entries(d.changes as Record<string, { after: unknown }>)) {
        if (change.after === null || change.after === undefined) delete properties[name];
        else properties[name] = change.after;
      }
      return { ...before, properties, updatedAt: e.occurredAt, updatedBy: e.userUuid, revision };
    }
    case 'RecordArchived':
      return { ...before, deletedAt: e.occurredAt, deletedBy: e.userUuid, revision };
    case 'RecordRestored':
      return { ...before, deletedAt: null, deletedBy: null, revision };
    case 'RecordExtended':
      return { ...before, extends: [...before.extends, String(d.extendedObjectUuid)], revision };
    case 'RecordExtensionRemoved':
      return { ...before, extends: before.extends.filter((o) => o !== d.extendedObjectUuid), revision };
    case 'RecordUserLinked':
      return { ...before, userUuid: String(d.userUuid), revision };
    case 'RecordUserUnlinked':
      return { ...before, userUuid: null, revision };
    default:
      return { ...before, revision };
  }
}

/** One record's states, each with the position of the event it follows, in log order. */
export interface RecordVersions {
  positions: number[];
  states: (RecordThen | null)[];
}

/** The state of a record at a position (null: none yet). */
export function versionAt(v: RecordVersions, position: number): RecordThen | null {
  let lo = 0;
  let hi = v.positions.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (v.positions[mid]! <= position) [found, lo] = [mid, mid + 1];
    else hi = mid - 1;
  }
  return found < 0 ? null : v.states[found]!;
}

function append(v: RecordVersions, e: LoggedRecordEvent): void {
  const before = v.states.length > 0 ? v.states[v.states.length - 1]! : null;
  v.positions.push(e.position);
  v.states.push(foldRecordEvent(before, e, v.states.length));
}

/**
 * An object's records through time: every version of every record that is or was a record of the
 * object, read once from the log (ADR 0020) and brought up to date from it before each answer.
 * Only events below the snapshot's xmin are kept (nothing can appear before them later); later
 * committed ones are read again each time (`tail`).
 */
export interface ObjectTimeline {
  objectUuid: string;
  records: Map<string, RecordVersions>;
  /** The last place of the log read into `records`. */
  place: { tx: string; position: number } | null;
  /** Events of the object's records read since `place` that an open transaction may still precede. */
  tail: LoggedRecordEvent[];
  events: number;
}

const uuidOf = (streamId: string) => streamId.slice(RECORD_STREAM_PREFIX.length);

/** Whether an event brings a record into the object (its create in it, or an extension into it). */
const entersObject = (e: LoggedRecordEvent, objectUuid: string) =>
  (e.type === 'RecordCreated' && e.data.objectUuid === objectUuid) || (e.type === 'RecordExtended' && e.data.extendedObjectUuid === objectUuid);

const BUILD_PAGE = 5_000;

/**
 * The object's timeline up to the log's safe place: its records (by their rows) read 5,000 at a
 * time with their events up to that place, the event loop given back between pages (ADR 0019's
 * rule: no request's build freezes the others). Events past the place are read by `catchUp`.
 */
export async function buildTimeline(sql: Sql, tenant: string, objectUuid: string): Promise<ObjectTimeline> {
  const place = await safeHead(sql);
  const t: ObjectTimeline = { objectUuid, records: new Map(), place, tail: [], events: 0 };
  if (!place) return t;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const uuids = await objectRecordUuids(sql, tenant, objectUuid, after, BUILD_PAGE);
    if (uuids.length === 0) break;
    for (const e of await recordsEventsTo(sql, tenant, uuids, place)) add(t, e);
    after = uuids[uuids.length - 1]!;
    if (uuids.length < BUILD_PAGE) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return t;
}

function add(t: ObjectTimeline, e: LoggedRecordEvent): void {
  const uuid = uuidOf(e.streamId);
  let v = t.records.get(uuid);
  if (!v) t.records.set(uuid, (v = { positions: [], states: [] }));
  append(v, e);
  t.events++;
}

const CATCH_UP_PAGE = 20_000;

/** Reads the record events after the timeline's place into it; returns the events read that are not safe yet. */
export async function catchUp(sql: Sql, tenant: string, t: ObjectTimeline): Promise<void> {
  const tail: LoggedRecordEvent[] = [];
  const tailed = new Set<string>();
  const later = (e: LoggedRecordEvent) => {
    tail.push(e);
    tailed.add(uuidOf(e.streamId));
  };
  let after = t.place ?? { tx: '0', position: 0 };
  for (;;) {
    const page = await recordEventsAfter(sql, tenant, after, CATCH_UP_PAGE);
    for (const e of page) {
      after = { tx: e.tx, position: e.position };
      const uuid = uuidOf(e.streamId);
      if (!t.records.has(uuid) && !tailed.has(uuid)) {
        if (!entersObject(e, t.objectUuid)) continue;
        if (e.type === 'RecordExtended') {
          // A record extended into the object: its earlier events first.
          const earlier = await streamEventsTo(sql, tenant, e.streamId, { tx: e.tx, position: e.position });
          for (const x of earlier) if (x.position !== e.position) (x.safe && e.safe && tail.length === 0 ? add(t, x) : later(x));
        }
      }
      if (e.safe && tail.length === 0) {
        add(t, e);
        t.place = after;
      } else later(e);
    }
    if (page.length < CATCH_UP_PAGE) break;
  }
  t.tail = tail;
}

/**
 * The records of the object at a position: each record's state then, when it was a record of the
 * object (its primary object, or extended into it). The tail's events are folded on top, for this
 * answer only.
 */
export function recordsAt(t: ObjectTimeline, position: number): RecordThen[] {
  const out: RecordThen[] = [];
  const tailed = new Map<string, LoggedRecordEvent[]>();
  for (const e of t.tail) {
    if (e.position > position) continue;
    const uuid = uuidOf(e.streamId);
    const list = tailed.get(uuid);
    if (list) list.push(e);
    else tailed.set(uuid, [e]);
  }
  const inObject = (s: RecordThen | null): s is RecordThen => s !== null && (s.primaryObjectUuid === t.objectUuid || s.extends.includes(t.objectUuid));
  for (const [uuid, v] of t.records) {
    const more = tailed.get(uuid);
    let s = versionAt(v, position);
    if (more) {
      let revision = v.positions.filter((p) => p <= position).length;
      for (const e of more) s = foldRecordEvent(s, e, revision++);
      tailed.delete(uuid);
    }
    if (inObject(s)) out.push(s);
  }
  for (const events of tailed.values()) {
    let s: RecordThen | null = null;
    events.forEach((e, i) => (s = foldRecordEvent(s, e, i)));
    if (inObject(s)) out.push(s);
  }
  return out;
}
