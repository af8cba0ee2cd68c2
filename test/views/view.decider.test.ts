import { describe, expect, it } from 'vitest';
import { viewDecider, type ViewFacts } from '../../aggregates/view/view.decider.js';
import { viewEventSchema, type ViewEvent } from '../../aggregates/view/view.events.js';
import { given } from '../support/decider-spec.js';

const V = '00000000-0000-4000-8000-000000000001';
const OWNER = '00000000-0000-4000-8000-0000000000aa';
const OTHER = '00000000-0000-4000-8000-0000000000bb';
const facts: ViewFacts = {
  object: { uuid: '00000000-0000-4000-8000-00000000000a', name: 'ticket', catalog: { properties: { title: { name: 'title', type: 'text' }, status: { name: 'status', type: 'text' }, score: { name: 'score', type: 'number' } } }, selects: ['status'] },
  team: null,
};
const owner = { userUuid: OWNER, canShare: false };
const other = { userUuid: OTHER, canShare: false };
const sharer = { userUuid: OTHER, canShare: true };
const schema = { schema: viewEventSchema };
const create = (input: Record<string, unknown> = {}) => given(viewDecider, [], schema).when({ type: 'CreateView', viewUuid: V, input: { name: 'Mine', objectUuid: facts.object!.uuid, ...input }, facts, actor: { ...owner, canShare: Boolean(input.sharing) } });
const created = (input: Record<string, unknown> = {}): ViewEvent => create(input).events()[0]!;

describe('view decider', () => {
  it('defaults every property as a column, 25 a page, personal, owned by its creator', () => {
    expect(created()).toMatchObject({ type: 'ViewCreated', data: { columns: [{ key: 'title', width: null }, { key: 'status', width: null }, { key: 'score', width: null }], pageSize: 25, sharing: 'personal', ownerUuid: OWNER, groupBy: null } });
    given(viewDecider, [created()], schema).when({ type: 'CreateView', viewUuid: V, input: { name: 'x', objectUuid: facts.object!.uuid }, facts, actor: owner }).thenFails('CONFLICT');
  });

  it('checks filters with the records filter compiler', () => {
    create({ filters: [{ key: 'score', operator: 'gt', value: 'high' }] }).thenFails('VALIDATION_FAILED', 'needs a number');
    create({ filters: [{ key: 'score', operator: 'between', value: [1, 5] }], groupBy: 'status' }).events();
  });

  it('only the owner changes a personal view; views:share changes shared ones and shares', () => {
    const update = { type: 'UpdateView' as const, input: { name: 'Renamed' }, facts };
    given(viewDecider, [created()], schema).when({ ...update, actor: owner }).then([{ type: 'ViewUpdated', version: 1, data: { changes: { name: 'Renamed' } } }]);
    given(viewDecider, [created()], schema).when({ ...update, actor: sharer }).thenFails('FORBIDDEN');
    given(viewDecider, [created({ sharing: 'company' })], schema).when({ ...update, actor: other }).thenFails('FORBIDDEN');
    given(viewDecider, [created({ sharing: 'company' })], schema).when({ ...update, actor: sharer }).events();
    given(viewDecider, [created()], schema).when({ type: 'UpdateView', input: { sharing: 'company' }, facts, actor: owner }).thenFails('FORBIDDEN', 'views:share');
    given(viewDecider, [created()], schema).when({ type: 'UpdateView', input: { name: 'Mine' }, facts, actor: owner }).then([]);
  });

  it('deleted views restore once', () => {
    const deleted: ViewEvent = { type: 'ViewDeleted', version: 1, data: { viewUuid: V } };
    given(viewDecider, [created()], schema).when({ type: 'DeleteView', actor: owner }).then([deleted]);
    given(viewDecider, [created(), deleted], schema).when({ type: 'DeleteView', actor: owner }).thenFails('NOT_FOUND');
    given(viewDecider, [created(), deleted], schema).when({ type: 'RestoreView', actor: owner }).then([{ type: 'ViewRestored', version: 1, data: { viewUuid: V } }]);
    given(viewDecider, [created()], schema).when({ type: 'RestoreView', actor: owner }).thenFails('STATE_NOT_ALLOWED');
  });
});
