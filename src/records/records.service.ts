import { randomUUID } from 'node:crypto';
import { DomainError, notFound, type ErrorDetail } from '../../aggregates/kernel/errors.js';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import { recordDecider, type RecordCommand, type RecordState } from '../../aggregates/record/record.decider.js';
import { recordStream } from '../../aggregates/record/record.events.js';
import { getRecord, type RecordObject, type RecordRow } from '../../read-models/records.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { objectByName, recordObjects } from './object-cache.js';
import { definitionsOf } from './record-definitions.js';
import { recordRowLoader } from './view-loader.js';
import type { EventStore } from '../event-store/port.js';

const RECORD_RETRIES = 30;

export interface WriteOptions {
  ignoreErrors?: boolean;
  /** A precondition: body `expectedRevision` or `If-Match`. */
  expectedRevision?: number;
}

export interface Written {
  uuid: string;
  revision: number;
  /** Whether anything changed (an update that changes nothing appends nothing). */
  changed: boolean;
}

export interface Created extends Written {
  /** The stored (normalised) values, the record's objects and its definitions: enough to answer without reading back. */
  properties: Record<string, unknown>;
  objects: RecordObject[];
  definitions: PropertyDefinition[];
  createdAt: number;
}

/** A unique value another record holds: which property, from the database's complaint when it says. */
function uniqueTaken(err: unknown, sent: Readonly<Record<string, unknown>>, objects: readonly RecordObject[]): DomainError {
  const detail = String((err as { detail?: string }).detail ?? '');
  const named = /\(tenant, object_uuid, name, value\)=\([^,]*, [^,]*, ([^,]+), /.exec(detail)?.[1];
  const candidates = named ? [named] : definitionsOf(objects).filter((d) => d.unique && sent[d.name] !== undefined).map((d) => d.name);
  const details: ErrorDetail[] = (candidates.length ? candidates : ['(unique property)']).map((name) => ({
    field: `body.properties.${name}`,
    message: `body.properties.${name}: the value is already used by another record; ${name} is unique`,
    type: 'VALIDATION',
    correctionSuggestion: `Send another value for ${name}, or update the record that holds it`,
  }));
  return new DomainError('VALIDATION_FAILED', details[0]!.message, details);
}

export function objectNotFound(name: string) {
  return new DomainError('NOT_FOUND', `Object ${name} not found`, [
    { message: `The selected company has no object named "${name}"`, type: 'NOT_FOUND', correctionSuggestion: 'Check the object name (list objects with POST /api/v2/objects/index)' },
  ]);
}

/** The decider's state of a record, from its read-model row (the law: equal to folding its stream; records.rebuild.property.test.ts). */
export function recordStateOf(uuid: string, row: RecordRow): RecordState {
  return {
    exists: true, uuid, objectUuid: row.primary_object_uuid, objectName: row.object_name, extends: row.extends,
    properties: row.vals, archived: row.deleted_at !== null,
  };
}

/** The write side of records: create, update, archive, restore, extend. */
export function makeRecordsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  async function objectNamed(tenant: string, name: string): Promise<RecordObject> {
    const object = await objectByName(db, tenant, name);
    if (!object) throw objectNotFound(name);
    return object;
  }

  const rowOf = recordRowLoader(db);

  /**
   * The record (a batched read of its row) and its objects (from the object cache); with
   * `objectName`, the record must be a record of that object.
   */
  async function existing(tenant: string, uuid: string, objectName?: string): Promise<{ row: RecordRow; objects: RecordObject[] }> {
    const found = await rowOf(tenant, uuid);
    if (!found || (objectName !== undefined && !found.object_names.includes(objectName))) throw notFound('Record', uuid);
    const { object_names, ...row } = found;
    return { row, objects: await recordObjects(db, tenant, object_names) };
  }

  /**
   * The record's decider state from its read-model row: written in the append's transaction, the
   * row is the stream's head (revision included), so a write need not read the stream. `known`
   * is the row the caller read already; a retry reads it again.
   */
  const snapshotOf = (tenant: string, uuid: string, known: RecordRow) => async (attempt: number) => {
    const row = attempt === 0 ? known : await getRecord(db, tenant, uuid);
    return row ? { state: recordStateOf(uuid, row), revision: Number(row.revision) } : null;
  };

  async function onRecord(ctx: CommandContext, uuid: string, known: RecordRow, command: RecordCommand, opts: WriteOptions = {}, sent: Record<string, unknown> = {}, objects: RecordObject[] = []) {
    try {
      const done = await handleCommand({
        store, decider: recordDecider, streamId: recordStream(uuid), command, context: ctx, expectedRevision: opts.expectedRevision,
        snapshot: snapshotOf(ctx.tenant, uuid, known),
        // Writers racing on one record: each round one of them wins, so allow as many rounds as a
        // burst of writers needs, spread by a small random wait.
        maxRetries: RECORD_RETRIES,
        retryDelayMs: (attempt) => Math.random() * Math.min(50, 2 * attempt),
      });
      return { uuid, revision: done.revision, changed: done.events.length > 0 };
    } catch (err) {
      if (isUniqueViolation(err, 'record_unique_pkey')) throw uniqueTaken(err, sent, objects);
      throw err;
    }
  }

  return {
    objectNamed,
    existing,

    /** Creates a record of `objectName`; `extends` names further objects it is also a record of. */
    async create(ctx: CommandContext, objectName: string, body: { uuid?: string; properties: Record<string, unknown>; extends?: string[] }, opts: WriteOptions = {}): Promise<Created> {
      const object = await objectNamed(ctx.tenant, objectName);
      const extended: RecordObject[] = [];
      for (const name of new Set(body.extends ?? [])) if (name !== objectName) extended.push(await objectNamed(ctx.tenant, name));
      const objects = [object, ...extended];
      const uuid = (body.uuid ?? randomUUID()).toLowerCase();
      const definitions = definitionsOf(objects);
      const command: RecordCommand = {
        type: 'CreateRecord', uuid, objectUuid: object.objectUuid, objectName: object.name, properties: body.properties,
        extends: extended.map((o) => o.objectUuid), definitions, ignoreErrors: opts.ignoreErrors ?? false,
      };
      try {
        const done = await handleCommand({
          store, decider: recordDecider, streamId: recordStream(uuid), command, context: ctx,
          // A new stream: no read first, so the append's `no_stream` check is the test. When it
          // fails, the retry reads the record, and the decider says it exists.
          snapshot: async (attempt) => {
            if (attempt === 0) return { state: recordDecider.initialState(), revision: -1 };
            const row = await getRecord(db, ctx.tenant, uuid);
            return row ? { state: recordStateOf(uuid, row), revision: Number(row.revision) } : null;
          },
        });
        const properties = (done.events[0]!.data as { properties: Record<string, unknown> }).properties;
        return { uuid, revision: done.revision, changed: true, properties, objects, definitions, createdAt: ctx.now };
      } catch (err) {
        if (isUniqueViolation(err, 'record_unique_pkey')) throw uniqueTaken(err, body.properties, objects);
        throw err;
      }
    },

    async update(ctx: CommandContext, uuid: string, properties: Record<string, unknown>, opts: WriteOptions & { objectName?: string } = {}): Promise<Written> {
      const { row, objects } = await existing(ctx.tenant, uuid, opts.objectName);
      return onRecord(ctx, uuid, row, { type: 'UpdateRecord', properties, definitions: definitionsOf(objects), ignoreErrors: opts.ignoreErrors ?? false }, opts, properties, objects);
    },

    async archive(ctx: CommandContext, uuid: string, mode: string, objectName?: string): Promise<Written> {
      const { row } = await existing(ctx.tenant, uuid, objectName);
      return onRecord(ctx, uuid, row, { type: 'ArchiveRecord', mode });
    },

    async restore(ctx: CommandContext, uuid: string, objectName?: string): Promise<Written> {
      const { row } = await existing(ctx.tenant, uuid, objectName);
      return onRecord(ctx, uuid, row, { type: 'RestoreRecord' });
    },

    async extend(ctx: CommandContext, uuid: string, extendedObjectName: string, objectName?: string): Promise<Written> {
      const { row, objects } = await existing(ctx.tenant, uuid, objectName);
      const target = await objectNamed(ctx.tenant, extendedObjectName);
      return onRecord(ctx, uuid, row, { type: 'ExtendRecord', objectUuid: target.objectUuid, objectName: target.name }, {}, {}, [...objects, target]);
    },

    async removeExtension(ctx: CommandContext, uuid: string, extendedObjectName: string, objectName?: string): Promise<Written> {
      const { row } = await existing(ctx.tenant, uuid, objectName);
      const target = await objectNamed(ctx.tenant, extendedObjectName);
      return onRecord(ctx, uuid, row, { type: 'RemoveExtension', objectUuid: target.objectUuid, objectName: target.name });
    },
  };
}

export type RecordsService = ReturnType<typeof makeRecordsService>;
