import type { Decider } from '../kernel/decider.js';
import { DomainError, invalid, notFound } from '../kernel/errors.js';
import { wrongState } from '../object/object.decider.js';
import { checkRelation, checkRelationChange } from './relation-rules.js';
import type { RelationDefinition, RelationInput } from './relation.schemas.js';
import type { RelationEvent } from './relation.events.js';

export type RelationCommand =
  | { type: 'CreateRelation'; relationUuid: string; fromObjectUuid: string; input: RelationInput }
  | { type: 'UpdateRelation'; input: Partial<RelationInput> }
  | { type: 'ChangeRelationIndex'; index: number }
  | { type: 'DeleteRelation' }
  | { type: 'RestoreRelation' }
  | { type: 'PurgeRelation' };

export interface RelationState {
  status: 'none' | 'live' | 'deleted' | 'purged';
  relationUuid: string;
  definition: RelationDefinition | null;
}

function mustExist(state: RelationState): RelationDefinition {
  if (state.status === 'none' || state.status === 'purged' || !state.definition) throw notFound('Relation', state.relationUuid || 'requested');
  return state.definition;
}

function mustBeLive(state: RelationState): RelationDefinition {
  const definition = mustExist(state);
  if (state.status === 'deleted') {
    throw wrongState(`Relation ${definition.name} is deleted`, `Restore relation ${definition.name} first, or delete it permanently`);
  }
  return definition;
}

export const relationDecider: Decider<RelationState, RelationCommand, RelationEvent> = {
  initialState: () => ({ status: 'none', relationUuid: '', definition: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateRelation': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', 'relation already exists', [{ message: 'A relation with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        const d = checkRelation(command.fromObjectUuid, command.input);
        return [{ type: 'RelationCreated', version: 1, data: { relationUuid: command.relationUuid, ...d } }];
      }
      case 'UpdateRelation': {
        const current = mustBeLive(state);
        if (command.input.name !== undefined && command.input.name.trim() !== current.name) {
          throw invalid('body.name', `the name of a relation cannot change (it is "${current.name}")`, 'A POST with another name creates another relation', 'INVALID_VALUE');
        }
        const change = checkRelationChange(current, command.input);
        const index = command.input.index;
        return [
          ...(Object.keys(change).length > 0 ? [{ type: 'RelationUpdated' as const, version: 1 as const, data: change }] : []),
          ...(index !== undefined && index !== current.index ? [{ type: 'RelationIndexChanged' as const, version: 1 as const, data: { index } }] : []),
        ];
      }
      case 'ChangeRelationIndex': {
        const current = mustBeLive(state);
        return command.index === current.index ? [] : [{ type: 'RelationIndexChanged', version: 1, data: { index: command.index } }];
      }
      case 'DeleteRelation':
        mustBeLive(state);
        return [{ type: 'RelationDeleted', version: 1, data: { relationUuid: state.relationUuid } }];
      case 'RestoreRelation': {
        const definition = mustExist(state);
        if (state.status !== 'deleted') throw wrongState(`Relation ${definition.name} is not deleted`, 'Only a deleted relation can be restored');
        return [{ type: 'RelationRestored', version: 1, data: { relationUuid: state.relationUuid } }];
      }
      case 'PurgeRelation': {
        const definition = mustExist(state);
        if (state.status !== 'deleted') {
          throw wrongState(
            `Relation ${definition.name} is not deleted, so it cannot be deleted permanently`,
            `Delete relation ${definition.name} first, then delete it permanently`,
          );
        }
        return [{ type: 'RelationPurged', version: 1, data: { relationUuid: state.relationUuid } }];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'RelationCreated': {
        const { relationUuid, ...definition } = event.data;
        return { status: 'live', relationUuid, definition };
      }
      case 'RelationUpdated':
        return { ...state, definition: state.definition && { ...state.definition, ...event.data } };
      case 'RelationIndexChanged':
        return { ...state, definition: state.definition && { ...state.definition, index: event.data.index } };
      case 'RelationDeleted':
        return { ...state, status: 'deleted' };
      case 'RelationRestored':
        return { ...state, status: 'live' };
      case 'RelationPurged':
        return { ...state, status: 'purged' };
    }
  },
};
