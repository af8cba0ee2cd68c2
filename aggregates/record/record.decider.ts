import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import type { PropertyDefinition } from '../property/property.schemas.js';
import type { RecordEvent } from './record.events.js';
import { checkValues, stableJson } from './record.values.js';

export type RecordCommand =
  /** `definitions`: the live properties of the object and of every object in `extends` (loaded by the handler). */
  | {
      type: 'CreateRecord';
      uuid: string;
      objectUuid: string;
      objectName: string;
      properties: Record<string, unknown>;
      extends: readonly string[];
      definitions: readonly PropertyDefinition[];
      ignoreErrors: boolean;
      /** User trait: the member of the company its e-mail property names (loaded by the handler), to link. */
      userUuid?: string | null;
    }
  /** Sets the sent properties (null clears one); the others keep their values. */
  | { type: 'UpdateRecord'; properties: Record<string, unknown>; definitions: readonly PropertyDefinition[]; ignoreErrors: boolean; userLink?: UserLinkFact }
  | { type: 'ArchiveRecord'; mode: string }
  | { type: 'RestoreRecord' }
  | { type: 'ExtendRecord'; objectUuid: string; objectName: string }
  | { type: 'RemoveExtension'; objectUuid: string; objectName: string }
  /** User trait (spec 1.6): the record is the profile of `userUuid`, a member of the company (checked by the handler). */
  | { type: 'LinkUser'; userUuid: string }
  | { type: 'UnlinkUser' };

/**
 * User trait: the object's e-mail property, and the member of the company the value sent for it
 * names (null: none, or one who is another record's user already). Loaded by the handler.
 */
export interface UserLinkFact {
  emailProperty: string;
  userUuid: string | null;
}

export interface RecordState {
  exists: boolean;
  uuid: string;
  objectUuid: string;
  objectName: string;
  extends: readonly string[];
  properties: Readonly<Record<string, unknown>>;
  archived: boolean;
  /** The platform user the record is the profile of (User trait), if linked. */
  user: string | null;
}

export const wrongRecordState = (message: string, correctionSuggestion: string) =>
  new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion }]);

function mustExist(state: RecordState) {
  if (!state.exists) throw notFound('Record', state.uuid || 'requested');
}

function mustBeLive(state: RecordState) {
  mustExist(state);
  if (state.archived) throw wrongRecordState(`Record ${state.uuid} is archived`, `Restore record ${state.uuid} first`);
}

/** User trait: a change of the e-mail property moves the link to the member it names, or ends it. */
function relinked(state: RecordState, changes: Record<string, unknown>, link: UserLinkFact | undefined): RecordEvent[] {
  if (!link || !Object.hasOwn(changes, link.emailProperty) || link.userUuid === state.user) return [];
  const data = { uuid: state.uuid, objectName: state.objectName, via: 'email' as const };
  if (link.userUuid === null) return [{ type: 'RecordUserUnlinked', version: 1, data: { ...data, userUuid: state.user! } }];
  return [{ type: 'RecordUserLinked', version: 1, data: { ...data, userUuid: link.userUuid } }];
}

const withoutNulls = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));

export const recordDecider: Decider<RecordState, RecordCommand, RecordEvent> = {
  initialState: () => ({ exists: false, uuid: '', objectUuid: '', objectName: '', extends: [], properties: {}, archived: false, user: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateRecord': {
        if (state.exists) {
          throw new DomainError('CONFLICT', `record ${command.uuid} already exists`, [
            { message: `A record with uuid ${command.uuid} exists`, type: 'GENERAL', correctionSuggestion: 'Leave uuid out to get a new one, or change the record with PUT' },
          ]);
        }
        const { values } = checkValues(command.properties, command.definitions, { creating: true, ignoreErrors: command.ignoreErrors });
        const ext = [...new Set(command.extends)].filter((o) => o !== command.objectUuid);
        const created: RecordEvent = {
          type: 'RecordCreated',
          version: 1,
          data: { uuid: command.uuid, objectUuid: command.objectUuid, objectName: command.objectName, properties: withoutNulls(values), ...(ext.length ? { extends: ext } : {}) },
        };
        if (!command.userUuid) return [created];
        return [created, { type: 'RecordUserLinked', version: 1, data: { uuid: command.uuid, objectName: command.objectName, userUuid: command.userUuid, via: 'email' } }];
      }
      case 'UpdateRecord': {
        mustBeLive(state);
        const { values } = checkValues(command.properties, command.definitions, { creating: false, ignoreErrors: command.ignoreErrors });
        const changes: Record<string, { before: unknown; after: unknown }> = {};
        for (const [name, after] of Object.entries(values)) {
          const before = Object.hasOwn(state.properties, name) ? state.properties[name] : null;
          if (stableJson(before) !== stableJson(after)) changes[name] = { before, after };
        }
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'RecordUpdated', version: 1, data: { uuid: state.uuid, objectName: state.objectName, changes } }, ...relinked(state, changes, command.userLink)];
      }
      case 'ArchiveRecord':
        mustBeLive(state);
        return [{ type: 'RecordArchived', version: 1, data: { uuid: state.uuid, objectName: state.objectName, mode: command.mode } }];
      case 'RestoreRecord':
        mustExist(state);
        if (!state.archived) throw wrongRecordState(`Record ${state.uuid} is not archived`, 'Only an archived record can be restored');
        return [{ type: 'RecordRestored', version: 1, data: { uuid: state.uuid, objectName: state.objectName } }];
      case 'ExtendRecord':
        mustBeLive(state);
        if (command.objectUuid === state.objectUuid || state.extends.includes(command.objectUuid)) return [];
        return [{ type: 'RecordExtended', version: 1, data: { uuid: state.uuid, objectName: state.objectName, extendedObjectUuid: command.objectUuid, extendedObjectName: command.objectName } }];
      case 'RemoveExtension':
        mustBeLive(state);
        if (!state.extends.includes(command.objectUuid)) throw notFound('Extension', `${state.uuid} -> ${command.objectName}`);
        return [{ type: 'RecordExtensionRemoved', version: 1, data: { uuid: state.uuid, objectName: state.objectName, extendedObjectUuid: command.objectUuid, extendedObjectName: command.objectName } }];
      case 'LinkUser':
        mustBeLive(state);
        if (state.user === command.userUuid) return [];
        return [{ type: 'RecordUserLinked', version: 1, data: { uuid: state.uuid, objectName: state.objectName, userUuid: command.userUuid, via: 'explicit' } }];
      case 'UnlinkUser':
        mustExist(state);
        if (state.user === null) return [];
        return [{ type: 'RecordUserUnlinked', version: 1, data: { uuid: state.uuid, objectName: state.objectName, userUuid: state.user, via: 'explicit' } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'RecordCreated': {
        const d = event.data;
        return { exists: true, uuid: d.uuid, objectUuid: d.objectUuid, objectName: d.objectName, extends: d.extends ?? [], properties: d.properties, archived: false, user: null };
      }
      case 'RecordUpdated': {
        const properties = { ...state.properties };
        for (const [name, { after }] of Object.entries(event.data.changes)) {
          if (after === null || after === undefined) delete properties[name];
          else properties[name] = after;
        }
        return { ...state, properties };
      }
      case 'RecordArchived':
        return { ...state, archived: true };
      case 'RecordRestored':
        return { ...state, archived: false };
      case 'RecordExtended':
        return { ...state, extends: [...state.extends, event.data.extendedObjectUuid] };
      case 'RecordExtensionRemoved':
        return { ...state, extends: state.extends.filter((o) => o !== event.data.extendedObjectUuid) };
      case 'RecordUserLinked':
        return { ...state, user: event.data.userUuid };
      case 'RecordUserUnlinked':
        return { ...state, user: null };
    }
  },
};
