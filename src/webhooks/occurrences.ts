import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { RECORD_STREAM_PREFIX, recordUuidOfStream } from '../../aggregates/record/record.events.js';
import { pageTopics, type NamedTopic, type Occurrence, type RecordAction } from '../../aggregates/webhook/webhook.topics.js';

/**
 * The log events webhooks react to, read through the fixed record contracts (record-<uuid>
 * streams, version 1): RecordCreated {uuid, objectUuid, objectName, properties, extends?},
 * RecordUpdated {uuid, objectName, changes: {name: {before, after}}}, RecordArchived {uuid,
 * objectName, mode}, RecordRestored {uuid, objectName}. Connections of two records
 * (RecordsConnected) are the RelationCreated topic; form submissions the FormSubmissionEvent topic.
 */
export const recordEventTypes = ['RecordCreated', 'RecordUpdated', 'RecordArchived', 'RecordRestored'] as const;
const namedEventTypes: Record<string, NamedTopic> = {
  RecordsConnected: 'RelationCreated',
  FormSubmitted: 'FormSubmissionEvent',
  FormSubmissionEvent: 'FormSubmissionEvent',
  // Webpage events are their own topics (page-<uuid> streams; the payload carries the event's data).
  ...Object.fromEntries(pageTopics.map((t) => [t, t])),
};

export const isWebhookEvent = (e: StoredEvent) => (recordEventTypes as readonly string[]).includes(e.type) || e.type in namedEventTypes;

interface RecordEventData {
  uuid: string;
  objectUuid?: string;
  objectName: string;
  properties?: Record<string, unknown>;
  extends?: string[];
  changes?: Record<string, { before: unknown; after: unknown }>;
  mode?: string;
  extendedObjectUuid?: string;
  extendedObjectName?: string;
}

const recordData = (e: StoredEvent) => e.data as RecordEventData;

/** The record action of a record event: an archive-mode DELETE is `archived`, any other mode `deleted`. */
function actionOf(e: StoredEvent): RecordAction {
  switch (e.type) {
    case 'RecordCreated':
      return 'created';
    case 'RecordUpdated':
      return 'updated';
    case 'RecordArchived':
      return recordData(e).mode === 'archive' ? 'archived' : 'deleted';
    default:
      return 'restored';
  }
}

/** Property names whose value an update really changed. */
export function changedProperties(e: StoredEvent): string[] {
  const changes = recordData(e).changes ?? {};
  return Object.keys(changes).filter((k) => JSON.stringify(changes[k]?.before) !== JSON.stringify(changes[k]?.after));
}

/** What topics can name about an event; `objectNames` is the primary object then the extended ones. */
export function occurrenceOf(e: StoredEvent, extendsOf: readonly string[] = []): Occurrence | null {
  const named = namedEventTypes[e.type];
  if (named) return { kind: 'named', name: named };
  if (!(recordEventTypes as readonly string[]).includes(e.type)) return null;
  const d = recordData(e);
  return { kind: 'record', objectNames: [d.objectName, ...extendsOf], action: actionOf(e), changed: e.type === 'RecordUpdated' ? changedProperties(e) : [] };
}

/** A record as it was right after one of its events (folded from its stream). */
export interface RecordSnapshot {
  uuid: string;
  objectUuid: string | null;
  objectName: string;
  /** Uuids of the further objects the record is a record of (spec 1.4). */
  extends: string[];
  /** Names of those objects where the log told them (RecordExtended); the rest are looked up. */
  extendedNames: Record<string, string>;
  properties: Record<string, unknown>;
  createdAt: number | null;
  updatedAt: number | null;
  deletedAt: number | null;
  revision: number;
}

/** Folds a record stream (up to the event of interest) into the record as it was then. */
export function foldRecord(events: readonly StoredEvent[]): RecordSnapshot | null {
  let r: RecordSnapshot | null = null;
  for (const e of events) {
    const d = recordData(e);
    const at = e.metadata.occurredAt;
    if (e.type === 'RecordCreated') {
      r = {
        uuid: d.uuid,
        objectUuid: d.objectUuid ?? null,
        objectName: d.objectName,
        extends: [...(d.extends ?? [])],
        extendedNames: {},
        properties: { ...(d.properties ?? {}) },
        createdAt: at,
        updatedAt: at,
        deletedAt: null,
        revision: e.revision,
      };
      continue;
    }
    if (!r) continue;
    r = { ...r, revision: e.revision, updatedAt: at };
    if (e.type === 'RecordUpdated') {
      const properties = { ...r.properties };
      for (const [name, change] of Object.entries(d.changes ?? {})) properties[name] = change.after;
      r.properties = properties;
    } else if (e.type === 'RecordArchived') r.deletedAt = at;
    else if (e.type === 'RecordRestored') r.deletedAt = null;
    else if (e.type === 'RecordExtended' && d.extendedObjectUuid) {
      r.extends = [...new Set([...r.extends, d.extendedObjectUuid])];
      r.extendedNames = { ...r.extendedNames, [d.extendedObjectUuid]: d.extendedObjectName ?? '' };
    } else if (e.type === 'RecordExtensionRemoved' && d.extendedObjectUuid) {
      r.extends = r.extends.filter((u) => u !== d.extendedObjectUuid);
    }
  }
  return r;
}

/** The stream a record event belongs to names the record: `record-<uuid>`. */
/** The record a stream is of; null for a stream of anything else. */
export const recordUuidOf = (streamId: string) => (streamId.startsWith(RECORD_STREAM_PREFIX) ? recordUuidOfStream(streamId) : null);
