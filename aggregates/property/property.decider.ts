import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { wrongState } from '../object/object.decider.js';
import { checkChange, checkDefinition, type LinkedRelationFact } from './property-rules.js';
import type { PropertyDefinition, PropertyInput } from './property.schemas.js';
import type { PropertyEvent } from './property.events.js';

export type PropertyCommand =
  /** `linkedRelation`: what the handler found about `input.relationUuid` (null when none or not found). */
  | { type: 'CreateProperty'; propertyUuid: string; objectUuid: string; input: PropertyInput; linkedRelation: LinkedRelationFact | null }
  | { type: 'UpdateProperty'; input: Partial<PropertyInput> }
  | { type: 'DeleteProperty' }
  | { type: 'RestoreProperty' };

export interface PropertyState {
  exists: boolean;
  propertyUuid: string;
  objectUuid: string;
  deleted: boolean;
  definition: PropertyDefinition | null;
}

function mustExist(state: PropertyState): PropertyDefinition {
  if (!state.exists || !state.definition) throw notFound('Property', state.propertyUuid || 'requested');
  return state.definition;
}

function mustBeLive(state: PropertyState) {
  const definition = mustExist(state);
  if (state.deleted) {
    throw wrongState(`Property ${definition.name} is deleted`, `Restore property ${definition.name} first`);
  }
  return definition;
}

export const propertyDecider: Decider<PropertyState, PropertyCommand, PropertyEvent> = {
  initialState: () => ({ exists: false, propertyUuid: '', objectUuid: '', deleted: false, definition: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateProperty': {
        if (state.exists) throw new DomainError('CONFLICT', 'property already exists', [{ message: 'A property with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        const definition = checkDefinition(command.input, command.linkedRelation);
        return [{ type: 'PropertyCreated', version: 1, data: { propertyUuid: command.propertyUuid, objectUuid: command.objectUuid, definition } }];
      }
      case 'UpdateProperty': {
        const current = mustBeLive(state);
        const change = checkChange(current, command.input);
        return Object.keys(change).length === 0 ? [] : [{ type: 'PropertyUpdated', version: 1, data: change }];
      }
      case 'DeleteProperty': {
        mustBeLive(state);
        return [{ type: 'PropertyDeleted', version: 1, data: { propertyUuid: state.propertyUuid } }];
      }
      case 'RestoreProperty': {
        const definition = mustExist(state);
        if (!state.deleted) throw wrongState(`Property ${definition.name} is not deleted`, 'Only a deleted property can be restored');
        return [{ type: 'PropertyRestored', version: 1, data: { propertyUuid: state.propertyUuid } }];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'PropertyCreated':
        return { exists: true, propertyUuid: event.data.propertyUuid, objectUuid: event.data.objectUuid, deleted: false, definition: event.data.definition };
      case 'PropertyUpdated':
        return { ...state, definition: state.definition && { ...state.definition, ...event.data } };
      case 'PropertyDeleted':
        return { ...state, deleted: true };
      case 'PropertyRestored':
        return { ...state, deleted: false };
    }
  },
};
