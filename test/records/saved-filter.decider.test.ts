import { describe, it } from 'vitest';
import { savedFilterDecider } from '../../aggregates/saved-filter/saved-filter.decider.js';
import { savedFilterEventSchema, type SavedFilterEvent } from '../../aggregates/saved-filter/saved-filter.events.js';
import { given } from '../support/decider-spec.js';

const F = '00000000-0000-4000-8000-0000000000a9';
const schema = { schema: savedFilterEventSchema };
const body = { name: 'Open deals', objectName: 'deal', filters: [{ key: 'stage', operator: 'equals' as const, value: 'open' }], groups: [], sort: [{ key: 'name', direction: 'asc' as const }] };
const created: SavedFilterEvent = { type: 'SavedFilterCreated', version: 1, data: { filterUuid: F, ...body } };
const deleted: SavedFilterEvent = { type: 'SavedFilterDeleted', version: 1, data: { filterUuid: F } };

describe('saved filter decider', () => {
  it('creates once, with its name trimmed; a blank or long name is refused', () => {
    given(savedFilterDecider, [], schema).when({ type: 'CreateSavedFilter', filterUuid: F, body: { ...body, name: '  Open deals ' } }).then([created]);
    given(savedFilterDecider, [created], schema).when({ type: 'CreateSavedFilter', filterUuid: F, body }).thenFails('CONFLICT');
    given(savedFilterDecider, [], schema).when({ type: 'CreateSavedFilter', filterUuid: F, body: { ...body, name: '   ' } }).thenFails('VALIDATION_FAILED', '1 to 200 characters');
    given(savedFilterDecider, [], schema).when({ type: 'CreateSavedFilter', filterUuid: F, body: { ...body, name: 'x'.repeat(201) } }).thenFails('VALIDATION_FAILED', '1 to 200 characters');
  });

  it('an update emits only what changed, and not once deleted', () => {
    given(savedFilterDecider, [created], schema).when({ type: 'UpdateSavedFilter', body: { name: 'Open deals', sort: body.sort } }).then([]);
    given(savedFilterDecider, [created], schema).when({ type: 'UpdateSavedFilter', body: { name: ' Won ', filters: body.filters } }).then([{ type: 'SavedFilterUpdated', version: 1, data: { name: 'Won' } }]);
    given(savedFilterDecider, [created, deleted], schema).when({ type: 'UpdateSavedFilter', body: { name: 'x' } }).thenFails('STATE_NOT_ALLOWED', 'Restore saved filter');
    given(savedFilterDecider, [], schema).when({ type: 'UpdateSavedFilter', body: { name: 'x' } }).thenFails('NOT_FOUND');
  });

  it('deletes and restores once each', () => {
    given(savedFilterDecider, [created], schema).when({ type: 'DeleteSavedFilter' }).then([deleted]);
    given(savedFilterDecider, [created, deleted], schema).when({ type: 'DeleteSavedFilter' }).thenFails('STATE_NOT_ALLOWED', 'deleted already');
    given(savedFilterDecider, [created, deleted], schema).when({ type: 'RestoreSavedFilter' }).then([{ type: 'SavedFilterRestored', version: 1, data: { filterUuid: F } }]);
    given(savedFilterDecider, [created], schema).when({ type: 'RestoreSavedFilter' }).thenFails('STATE_NOT_ALLOWED', 'not deleted');
    given(savedFilterDecider, [], schema).when({ type: 'RestoreSavedFilter' }).thenFails('NOT_FOUND');
  });
});
