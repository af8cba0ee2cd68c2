import type { Decider } from '../kernel/decider.js';
import { DomainError, invalid, notFound } from '../kernel/errors.js';
import { checkGroup, checkObjectName, checkOptionalText, checkText } from './names.js';
import type { ObjectEvent } from './object.events.js';

export interface ObjectFields {
  label?: string;
  plural?: string;
  description?: string;
  icon?: string;
  group?: string | null;
}

export type ObjectCommand =
  | ({ type: 'CreateObject'; objectUuid: string; name: string; label: string } & ObjectFields)
  /** `name` may be sent (a client PUTs back what it read) but may not change. */
  | ({ type: 'UpdateObject'; name?: string } & ObjectFields)
  | { type: 'DeleteObject' }
  | { type: 'RestoreObject' };

export interface ObjectState {
  exists: boolean;
  objectUuid: string;
  name: string;
  deleted: boolean;
  /** The display fields as they are now, so an update that changes nothing emits nothing. */
  fields: Required<ObjectFields>;
}

/** A transition the resource's current state does not allow (409). */
export const wrongState = (message: string, correctionSuggestion: string) =>
  new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion }]);

function mustExist(state: ObjectState) {
  if (!state.exists) throw notFound('Object', state.objectUuid || 'requested');
}

function mustBeLive(state: ObjectState) {
  mustExist(state);
  if (state.deleted) throw wrongState(`Object ${state.name} is deleted`, `Restore object ${state.name} first`);
}

function displayFields(command: ObjectFields) {
  return {
    ...(command.label !== undefined ? { label: checkText('label', command.label) } : {}),
    ...(command.plural !== undefined ? { plural: checkText('plural', command.plural) } : {}),
    ...(command.description !== undefined ? { description: checkOptionalText('description', command.description) } : {}),
    ...(command.icon !== undefined ? { icon: checkOptionalText('icon', command.icon, 200) } : {}),
    ...(command.group !== undefined ? { group: checkGroup(command.group) } : {}),
  };
}

export const objectDecider: Decider<ObjectState, ObjectCommand, ObjectEvent> = {
  initialState: () => ({ exists: false, objectUuid: '', name: '', deleted: false, fields: { label: '', plural: '', description: '', icon: '', group: null } }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateObject': {
        if (state.exists) throw new DomainError('CONFLICT', 'object already exists', [{ message: 'An object with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        const label = checkText('label', command.label);
        return [
          {
            type: 'ObjectCreated',
            version: 1,
            data: {
              objectUuid: command.objectUuid,
              name: checkObjectName(command.name),
              label,
              plural: command.plural === undefined ? label : checkText('plural', command.plural),
              description: checkOptionalText('description', command.description),
              icon: checkOptionalText('icon', command.icon, 200),
              group: checkGroup(command.group),
            },
          },
        ];
      }
      case 'UpdateObject': {
        mustBeLive(state);
        if (command.name !== undefined && command.name.trim() !== state.name) {
          throw invalid('body.name', `the name of an object cannot change (it is "${state.name}")`, `Send name "${state.name}" or leave it out; to rename, create a new object`, 'INVALID_VALUE');
        }
        const data = Object.fromEntries(Object.entries(displayFields(command)).filter(([k, v]) => state.fields[k as keyof ObjectFields] !== v));
        return Object.keys(data).length === 0 ? [] : [{ type: 'ObjectUpdated', version: 1, data }];
      }
      case 'DeleteObject':
        mustBeLive(state);
        return [{ type: 'ObjectDeleted', version: 1, data: { objectUuid: state.objectUuid } }];
      case 'RestoreObject':
        mustExist(state);
        if (!state.deleted) throw wrongState(`Object ${state.name} is not deleted`, 'Only a deleted object can be restored');
        return [{ type: 'ObjectRestored', version: 1, data: { objectUuid: state.objectUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ObjectCreated': {
        const { objectUuid, name, ...fields } = event.data;
        return { exists: true, objectUuid, name, deleted: false, fields };
      }
      case 'ObjectUpdated':
        return { ...state, fields: { ...state.fields, ...event.data } };
      case 'ObjectDeleted':
        return { ...state, deleted: true };
      case 'ObjectRestored':
        return { ...state, deleted: false };
    }
  },
};
