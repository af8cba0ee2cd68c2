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
    }
  /** Sets the sent properties (null clears one); the others keep their values. */
  | { type: 'UpdateRecord'; properties: Record<string, unknown>; definitions: readonly PropertyDefinition[]; ignoreErrors: boolean }
  | { type: 'ArchiveRecord'; mode: string }
  | { type: 'RestoreRecord' }
  | { type: 'ExtendRecord'; objectUuid: string; objectName: string }
  | { type: 'RemoveExtension'; objectUuid: string; objectName: string };

export interface RecordState {
  exists: boolean;
  uuid: string;
  objectUuid: string;
  objectName: string;
  extends: readonly string[];
  properties: Readonly<Record<string, unknown>>;
  archived: boolean;
}

export const wrongRecordState = (message: string, correctionSuggestion: string) =>
  new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion }]);

function mustExist(state: RecordState) {
  if (!state.exists) throw notFound('Record', state.uuid || 'requested');
}

function mustBeLive(state: RecordState) {
  mustExist(state);
  if (state.archived) throw wrongRecordState(`Record ${state.uuid} is archived`, `Restore it first with POST /api/v2/records/${state.uuid}/restore`);
}

const withoutNulls = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));

export const recordDecider: Decider<RecordState, RecordCommand, RecordEvent> = {
  initialState: () => ({ exists: false, uuid: '', objectUuid: '', objectName: '', extends: [], properties: {}, archived: false }),
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
        return [
          {
            type: 'RecordCreated',
            version: 1,
            data: { uuid: command.uuid, objectUuid: command.objectUuid, objectName: command.objectName, properties: withoutNulls(values), ...(ext.length ? { extends: ext } : {}) },
          },
        ];
      }
      case 'UpdateRecord': {
        mustBeLive(state);
        const { values } = checkValues(command.properties, command.definitions, { creating: false, ignoreErrors: command.ignoreErrors });
        const changes: Record<string, { before: unknown; after: unknown }> = {};
        for (const [name, after] of Object.entries(values)) {
          const before = Object.hasOwn(state.properties, name) ? state.properties[name] : null;
          if (stableJson(before) !== stableJson(after)) changes[name] = { before, after };
        }
        return Object.keys(changes).length === 0 ? [] : [{ type: 'RecordUpdated', version: 1, data: { uuid: state.uuid, objectName: state.objectName, changes } }];
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
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'RecordCreated': {
        const d = event.data;
        return { exists: true, uuid: d.uuid, objectUuid: d.objectUuid, objectName: d.objectName, extends: d.extends ?? [], properties: d.properties, archived: false };
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
    }
  },
};
