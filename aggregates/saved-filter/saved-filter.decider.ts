import type { Decider } from '../kernel/decider.js';
import { DomainError, invalid, notFound } from '../kernel/errors.js';
import type { SavedFilterBody, SavedFilterEvent } from './saved-filter.events.js';

export type SavedFilterCommand =
  /** The handler has compiled `body` against the object's properties before. */
  | { type: 'CreateSavedFilter'; filterUuid: string; body: SavedFilterBody }
  | { type: 'UpdateSavedFilter'; body: Partial<SavedFilterBody> }
  | { type: 'DeleteSavedFilter' }
  | { type: 'RestoreSavedFilter' };

export interface SavedFilterState {
  exists: boolean;
  filterUuid: string;
  deleted: boolean;
  body: SavedFilterBody | null;
}

const wrongState = (message: string, correctionSuggestion: string) => new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion }]);

function checkName(raw: string) {
  const name = raw.trim();
  if (!name || name.length > 200) throw invalid('body.name', 'name must have 1 to 200 characters', 'Send a name for the filter', 'INVALID_VALUE');
  return name;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const savedFilterDecider: Decider<SavedFilterState, SavedFilterCommand, SavedFilterEvent> = {
  initialState: () => ({ exists: false, filterUuid: '', deleted: false, body: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateSavedFilter':
        if (state.exists) throw new DomainError('CONFLICT', 'saved filter exists', [{ message: 'A saved filter with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        return [{ type: 'SavedFilterCreated', version: 1, data: { filterUuid: command.filterUuid, ...command.body, name: checkName(command.body.name) } }];
      case 'UpdateSavedFilter': {
        if (!state.exists) throw notFound('Saved filter', state.filterUuid || 'requested');
        if (state.deleted) throw wrongState('The saved filter is deleted', `Restore saved filter ${state.filterUuid} first`);
        const next = { ...command.body, ...(command.body.name !== undefined ? { name: checkName(command.body.name) } : {}) };
        const changed = Object.fromEntries(Object.entries(next).filter(([k, v]) => v !== undefined && !same(v, state.body?.[k as keyof SavedFilterBody])));
        return Object.keys(changed).length === 0 ? [] : [{ type: 'SavedFilterUpdated', version: 1, data: changed }];
      }
      case 'DeleteSavedFilter':
        if (!state.exists) throw notFound('Saved filter', state.filterUuid || 'requested');
        if (state.deleted) throw wrongState('The saved filter is deleted already', `Nothing to delete: restore saved filter ${state.filterUuid} to use it again`);
        return [{ type: 'SavedFilterDeleted', version: 1, data: { filterUuid: state.filterUuid } }];
      case 'RestoreSavedFilter':
        if (!state.exists) throw notFound('Saved filter', state.filterUuid || 'requested');
        if (!state.deleted) throw wrongState('The saved filter is not deleted', 'Only a deleted saved filter can be restored');
        return [{ type: 'SavedFilterRestored', version: 1, data: { filterUuid: state.filterUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SavedFilterCreated': {
        const { filterUuid, ...body } = event.data;
        return { exists: true, filterUuid, deleted: false, body };
      }
      case 'SavedFilterUpdated':
        return { ...state, body: { ...state.body!, ...Object.fromEntries(Object.entries(event.data).filter(([, v]) => v !== undefined)) } };
      case 'SavedFilterDeleted':
        return { ...state, deleted: true };
      case 'SavedFilterRestored':
        return { ...state, deleted: false };
    }
  },
};
