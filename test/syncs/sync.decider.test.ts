import { describe, expect, it } from 'vitest';
import { syncDecider, type SyncSchemaFacts } from '../../aggregates/sync/sync.decider.js';
import { syncEventSchema, type SyncEvent } from '../../aggregates/sync/sync.events.js';
import { given } from '../support/decider-spec.js';

const S = '00000000-0000-4000-8000-000000000001';
const facts: SyncSchemaFacts = {
  source: { uuid: '00000000-0000-4000-8000-00000000000a', name: 'account', properties: { email: 'string', n: 'number' } },
  target: { uuid: '00000000-0000-4000-8000-00000000000b', name: 'contact', properties: { accountEmail: 'string' } },
  relation: { uuid: '00000000-0000-4000-8000-00000000000c', fromObjectUuid: '00000000-0000-4000-8000-00000000000b', toObjectUuid: '00000000-0000-4000-8000-00000000000a' },
};
const input = { sourceObjectUuid: facts.source!.uuid, targetObjectUuid: facts.target!.uuid, relationUuid: facts.relation!.uuid, mappings: [{ source: 'email', target: 'accountEmail' }] };
const schema = { schema: syncEventSchema };
const created = (): SyncEvent => given(syncDecider, [], schema).when({ type: 'CreateSync', syncUuid: S, input, facts }).events()[0]!;
const deleted: SyncEvent = { type: 'SyncDeleted', version: 1, data: { syncUuid: S } };
const restored: SyncEvent = { type: 'SyncRestored', version: 1, data: { syncUuid: S } };

describe('sync decider', () => {
  it('accepts a relation in either direction and names the sync after its two objects', () => {
    expect(created()).toMatchObject({ type: 'SyncCreated', data: { sourceObjectName: 'account', targetObjectName: 'contact', enabled: true, name: 'account_to_contact' } });
    const reversed = { ...facts, relation: { ...facts.relation!, fromObjectUuid: facts.source!.uuid, toObjectUuid: facts.target!.uuid } };
    expect(given(syncDecider, [], schema).when({ type: 'CreateSync', syncUuid: S, input, facts: reversed }).events()).toHaveLength(1);
    given(syncDecider, [created()], schema).when({ type: 'CreateSync', syncUuid: S, input, facts }).thenFails('CONFLICT');
  });

  it('deleted syncs restore once; a live one is a 409', () => {
    given(syncDecider, [created(), deleted], schema).when({ type: 'RestoreSync' }).then([restored]);
    given(syncDecider, [created(), deleted, restored], schema).when({ type: 'RestoreSync' }).thenFails('STATE_NOT_ALLOWED', 'Only a deleted sync can be restored');
    given(syncDecider, [created()], schema).when({ type: 'RestoreSync' }).thenFails('STATE_NOT_ALLOWED', 'is not deleted');
    given(syncDecider, [created(), deleted], schema).when({ type: 'DeleteSync' }).thenFails('NOT_FOUND');
    given(syncDecider, [], schema).when({ type: 'RestoreSync' }).thenFails('NOT_FOUND');
  });

  it('an update emits only what changed', () => {
    given(syncDecider, [created()], schema).when({ type: 'UpdateSync', input: { enabled: true }, facts }).then([]);
    given(syncDecider, [created()], schema).when({ type: 'UpdateSync', input: { enabled: false, label: 'Copy' }, facts }).then([
      { type: 'SyncUpdated', version: 1, data: { changes: { label: 'Copy', enabled: false } } },
    ]);
  });

  it('refuses a type mismatch, a relation between other objects and missing objects, every problem at once', () => {
    given(syncDecider, [], schema).when({ type: 'CreateSync', syncUuid: S, input: { ...input, mappings: [{ source: 'n', target: 'accountEmail' }] }, facts }).thenFails('VALIDATION_FAILED', 'cannot be copied');
    const elsewhere = { ...facts, relation: { ...facts.relation!, toObjectUuid: '00000000-0000-4000-8000-00000000000d' } };
    given(syncDecider, [], schema).when({ type: 'CreateSync', syncUuid: S, input, facts: elsewhere }).thenFails('VALIDATION_FAILED', 'does not connect');
    const e = given(syncDecider, [], schema).when({ type: 'CreateSync', syncUuid: S, input: {}, facts: { source: null, target: null, relation: null } }).thenFails('VALIDATION_FAILED');
    expect(e.details.map((d) => d.field)).toEqual(expect.arrayContaining(['body.sourceObjectUuid', 'body.targetObjectUuid', 'body.relationUuid', 'body.mappings']));
  });
});
