import { timeOrderedUuid } from '../db/time-ordered-uuid.js';
import { DomainError, invalid, notFound, type ErrorDetail } from '../../aggregates/kernel/errors.js';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import { recordDecider, wrongRecordState, type RecordCommand, type RecordState, type UserLinkFact } from '../../aggregates/record/record.decider.js';
import { recordStream } from '../../aggregates/record/record.events.js';
import { getRecord, type RecordObject, type RecordRow } from '../../read-models/records.queries.js';
import { linkableMember } from '../../read-models/record-users.queries.js';
import { handleCommand, newStreamWrite, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
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
  /** User trait: the member the record was linked to by its e-mail, if any. */
  userUuid: string | null;
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

/** A user is the profile of one record of the company at most (index records_user_link). */
function userTaken(userUuid: string, otherRecord?: string | null): DomainError {
  const message = `User ${userUuid} is the profile of another record${otherRecord ? ` (${otherRecord})` : ''}`;
  return new DomainError('CONFLICT', message, [
    { message, type: 'GENERAL', correctionSuggestion: `Unlink it there first with DELETE /api/v2/records/${otherRecord ?? '{recordUuid}'}/user` },
  ]);
}

/** The User trait among a record's objects, if one holds it. */
const userTraitOf = (objects: readonly RecordObject[]) => objects.find((o) => o.userTrait)?.userTrait ?? null;

export function objectNotFound(name: string) {
  return new DomainError('NOT_FOUND', `Object ${name} not found`, [
    { message: `The selected company has no object named "${name}"`, type: 'NOT_FOUND', correctionSuggestion: 'Check the object name (list objects with POST /api/v2/objects/index)' },
  ]);
}

/** The decider's state of a record, from its read-model row (the law: equal to folding its stream; records.rebuild.property.test.ts). */
export function recordStateOf(uuid: string, row: RecordRow): RecordState {
  return {
    exists: true, uuid, objectUuid: row.primary_object_uuid, objectName: row.object_name, extends: row.extends,
    properties: row.vals, archived: row.deleted_at !== null, user: row.user_uuid,
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
    const done = await mapUniqueViolations(
      () =>
        handleCommand({
          store, decider: recordDecider, streamId: recordStream(uuid), command, context: ctx, expectedRevision: opts.expectedRevision,
          snapshot: snapshotOf(ctx.tenant, uuid, known),
          // Writers racing on one record: each round one of them wins, so allow as many rounds as a
          // burst of writers needs, spread by a small random wait.
          maxRetries: RECORD_RETRIES,
          retryDelayMs: (attempt) => Math.random() * Math.min(50, 2 * attempt),
        }),
      {
        record_unique_pkey: (err) => {
          throw uniqueTaken(err, sent, objects);
        },
        records_user_link: () => {
          throw userTaken(command.type === 'LinkUser' ? command.userUuid : 'named by the e-mail');
        },
      },
    );
    return { uuid, revision: done.revision, changed: done.events.length > 0 };
  }

  /**
   * User trait: the active member of the company the record's e-mail property names, when the
   * object holds the trait with an e-mail property and the values set it; `undefined` when they do
   * not set it. A member who is another record's profile already is not linked (null).
   */
  async function memberNamed(tenant: string, uuid: string, objects: readonly RecordObject[], values: Readonly<Record<string, unknown>>): Promise<UserLinkFact | undefined> {
    const emailProperty = userTraitOf(objects)?.emailProperty;
    if (!emailProperty || !Object.hasOwn(values, emailProperty)) return undefined;
    const email = values[emailProperty];
    const member = typeof email === 'string' && email.trim() !== '' ? await linkableMember(db, tenant, { email }) : null;
    const free = member && (member.linked_record === null || member.linked_record === uuid);
    return { emailProperty, userUuid: free ? member.user_uuid : null };
  }

  return {
    objectNamed,
    existing,

    /**
     * The command that creates a record of `objectName` (its facts loaded), not run: `create` runs
     * it, a multi-stream command (`handleCreations`, a form submission) takes it with others.
     */
    async creation(tenant: string, objectName: string, body: { uuid?: string; properties: Record<string, unknown>; extends?: string[] }, opts: WriteOptions = {}) {
      const object = await objectNamed(tenant, objectName);
      const extended: RecordObject[] = [];
      for (const name of new Set(body.extends ?? [])) if (name !== objectName) extended.push(await objectNamed(tenant, name));
      const objects = [object, ...extended];
      const uuid = (body.uuid ?? timeOrderedUuid()).toLowerCase();
      const definitions = definitionsOf(objects);
      const userUuid = (await memberNamed(tenant, uuid, objects, body.properties))?.userUuid ?? null;
      const command: RecordCommand = {
        type: 'CreateRecord', uuid, objectUuid: object.objectUuid, objectName: object.name, properties: body.properties,
        extends: extended.map((o) => o.objectUuid), definitions, ignoreErrors: opts.ignoreErrors ?? false, userUuid,
      };
      return { uuid, objects, definitions, userUuid, command, write: newStreamWrite(recordDecider, recordStream(uuid), command) };
    },

    /** Creates a record of `objectName`; `extends` names further objects it is also a record of. */
    async create(ctx: CommandContext, objectName: string, body: { uuid?: string; properties: Record<string, unknown>; extends?: string[] }, opts: WriteOptions = {}): Promise<Created> {
      const { uuid, objects, definitions, userUuid, command } = await this.creation(ctx.tenant, objectName, body, opts);
      const done = await mapUniqueViolations(
        () =>
          handleCommand({
            store, decider: recordDecider, streamId: recordStream(uuid), command, context: ctx,
            // A new stream: no read first, so the append's `no_stream` check is the test. When it
            // fails, the retry reads the record, and the decider says it exists.
            snapshot: async (attempt) => {
              if (attempt === 0) return { state: recordDecider.initialState(), revision: -1 };
              const row = await getRecord(db, ctx.tenant, uuid);
              return row ? { state: recordStateOf(uuid, row), revision: Number(row.revision) } : null;
            },
          }),
        {
          record_unique_pkey: (err) => {
            throw uniqueTaken(err, body.properties, objects);
          },
          records_user_link: (err) => {
            throw userUuid ? userTaken(userUuid) : err;
          },
        },
      );
      const properties = (done.events[0]!.data as { properties: Record<string, unknown> }).properties;
      return { uuid, revision: done.revision, changed: true, properties, objects, definitions, createdAt: ctx.now, userUuid };
    },

    async update(ctx: CommandContext, uuid: string, properties: Record<string, unknown>, opts: WriteOptions & { objectName?: string } = {}): Promise<Written> {
      const { row, objects } = await existing(ctx.tenant, uuid, opts.objectName);
      const userLink = await memberNamed(ctx.tenant, uuid, objects, properties);
      return onRecord(ctx, uuid, row, { type: 'UpdateRecord', properties, definitions: definitionsOf(objects), ignoreErrors: opts.ignoreErrors ?? false, userLink }, opts, properties, objects);
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

    /**
     * User trait: makes the record the profile of `userUuid`, or (without it) of the member its
     * e-mail property names. Only an active member of the caller's company: anyone else is the
     * same 404 as a user who does not exist.
     */
    async linkUser(ctx: CommandContext, uuid: string, userUuid?: string): Promise<Written> {
      const { row, objects } = await existing(ctx.tenant, uuid);
      const trait = userTraitOf(objects);
      if (!trait) throw wrongRecordState(`Record ${uuid} is no user profile: none of its objects has the User trait`, 'Give its object the User trait first (POST /api/v2/traits/{objectUuid}/User)');
      let member;
      if (userUuid !== undefined) {
        member = await linkableMember(db, ctx.tenant, { userUuid });
        if (!member) throw notFound('User', userUuid);
      } else {
        const email = trait.emailProperty ? row.vals[trait.emailProperty] : undefined;
        if (typeof email !== 'string' || email.trim() === '') {
          throw invalid('body.userUuid', 'no user named: the record holds no e-mail to link by', trait.emailProperty ? `Send {"userUuid": "..."} or set the record's ${trait.emailProperty}` : 'Send {"userUuid": "..."} (the User trait names no emailProperty)', 'INVALID_VALUE');
        }
        member = await linkableMember(db, ctx.tenant, { email });
        if (!member) throw notFound('User', email);
      }
      if (member.linked_record !== null && member.linked_record !== uuid) throw userTaken(member.user_uuid, member.linked_record);
      return onRecord(ctx, uuid, row, { type: 'LinkUser', userUuid: member.user_uuid });
    },

    /** User trait: the record is no longer any user's profile (nothing happens when it was not). */
    async unlinkUser(ctx: CommandContext, uuid: string): Promise<Written> {
      const { row } = await existing(ctx.tenant, uuid);
      return onRecord(ctx, uuid, row, { type: 'UnlinkUser' });
    },

    async removeExtension(ctx: CommandContext, uuid: string, extendedObjectName: string, objectName?: string): Promise<Written> {
      const { row } = await existing(ctx.tenant, uuid, objectName);
      const target = await objectNamed(ctx.tenant, extendedObjectName);
      return onRecord(ctx, uuid, row, { type: 'RemoveExtension', objectUuid: target.objectUuid, objectName: target.name });
    },
  };
}

export type RecordsService = ReturnType<typeof makeRecordsService>;
