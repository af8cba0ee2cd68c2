import { describe, expect, it } from 'vitest';
import { given } from '../support/decider-spec.js';
import { objectDecider } from '../../aggregates/object/object.decider.js';
import type { ObjectEvent } from '../../aggregates/object/object.events.js';
import { propertyDecider } from '../../aggregates/property/property.decider.js';
import type { PropertyEvent } from '../../aggregates/property/property.events.js';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import { recordLinkDecider } from '../../aggregates/relation/record-link.decider.js';
import type { RecordLinkEvent } from '../../aggregates/relation/record-link.events.js';
import { relationDecider } from '../../aggregates/relation/relation.decider.js';
import type { RelationEvent } from '../../aggregates/relation/relation.events.js';
import { traitDecider } from '../../aggregates/trait/trait.decider.js';
import type { PropertyFact } from '../../aggregates/trait/trait-config.js';

const O = '00000000-0000-4000-8000-00000000000a';
const O2 = '00000000-0000-4000-8000-00000000000b';
const P = '00000000-0000-4000-8000-00000000000c';
const R = '00000000-0000-4000-8000-00000000000d';
const R1 = '00000000-0000-4000-8000-000000000001';
const R2 = '00000000-0000-4000-8000-000000000002';

const objectCreated: ObjectEvent = { type: 'ObjectCreated', version: 1, data: { objectUuid: O, name: 'deal', label: 'Deal', plural: 'Deals', description: '', icon: '', group: null } };

describe('object decider', () => {
  it('creates with trimmed fields and the label as default plural', () =>
    given(objectDecider).when({ type: 'CreateObject', objectUuid: O, name: ' deal ', label: ' Deal ' }).then([
      { type: 'ObjectCreated', version: 1, data: { objectUuid: O, name: 'deal', label: 'Deal', plural: 'Deal', description: '', icon: '', group: null } },
    ]));
  it('refuses a reserved or malformed name', () => {
    given(objectDecider).when({ type: 'CreateObject', objectUuid: O, name: 'records', label: 'R' }).thenFails('VALIDATION_FAILED', 'reserved');
    given(objectDecider).when({ type: 'CreateObject', objectUuid: O, name: 'Deal', label: 'R' }).thenFails('VALIDATION_FAILED', 'lowercase');
  });
  it('updates only what changes; the name may be repeated but not changed', () => {
    given(objectDecider, [objectCreated]).when({ type: 'UpdateObject', name: 'deal', label: 'Deal', plural: 'Opportunities' }).then([{ type: 'ObjectUpdated', version: 1, data: { plural: 'Opportunities' } }]);
    given(objectDecider, [objectCreated]).when({ type: 'UpdateObject', label: 'Deal' }).then([]);
    given(objectDecider, [objectCreated]).when({ type: 'UpdateObject', name: 'opportunity' }).thenFails('VALIDATION_FAILED', 'cannot change');
  });
  it('soft-deletes and restores, each only from the right state', () => {
    const deleted: ObjectEvent = { type: 'ObjectDeleted', version: 1, data: { objectUuid: O } };
    given(objectDecider, [objectCreated]).when({ type: 'DeleteObject' }).then([deleted]);
    given(objectDecider, [objectCreated, deleted]).when({ type: 'DeleteObject' }).thenFails('STATE_NOT_ALLOWED', 'Restore object deal first');
    given(objectDecider, [objectCreated, deleted]).when({ type: 'UpdateObject', label: 'x' }).thenFails('STATE_NOT_ALLOWED');
    given(objectDecider, [objectCreated, deleted]).when({ type: 'RestoreObject' }).then([{ type: 'ObjectRestored', version: 1, data: { objectUuid: O } }]);
    given(objectDecider, [objectCreated]).when({ type: 'RestoreObject' }).thenFails('STATE_NOT_ALLOWED');
    given(objectDecider).when({ type: 'DeleteObject' }).thenFails('NOT_FOUND');
  });
});

const select: PropertyDefinition = {
  name: 'stage', label: 'Stage', type: 'string', format: 'select', options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }], required: true, unique: false,
  minLength: null, maxLength: null, min: null, max: null, pattern: null, description: '', icon: '', group: null, relationUuid: null,
};
const propertyCreated: PropertyEvent = { type: 'PropertyCreated', version: 1, data: { propertyUuid: P, objectUuid: O, definition: select } };

describe('property decider', () => {
  it('creates a normalised definition', () =>
    given(propertyDecider).when({ type: 'CreateProperty', propertyUuid: P, objectUuid: O, input: { name: 'stage', label: 'Stage', type: 'string', format: 'select', options: select.options, required: true }, linkedRelation: null }).then([propertyCreated]));
  it('checks that format, type and rules fit together, reporting every problem', () => {
    const err = given(propertyDecider)
      .when({ type: 'CreateProperty', propertyUuid: P, objectUuid: O, input: { name: 'n', label: 'N', type: 'boolean', format: 'text', min: 1, pattern: '(' }, linkedRelation: null })
      .thenFails('VALIDATION_FAILED');
    expect(err.details.map((d) => d.field)).toEqual(['body.type', 'body.min', 'body.pattern']);
    given(propertyDecider).when({ type: 'CreateProperty', propertyUuid: P, objectUuid: O, input: { name: 'n', label: 'N', type: 'string', format: 'linked', relationUuid: R }, linkedRelation: { relationUuid: R, deleted: false, touchesObject: false } }).thenFails('VALIDATION_FAILED', 'does not start or end');
  });
  it('refuses changes to immutable fields and removed options; allows labels, reordering and new options', () => {
    given(propertyDecider, [propertyCreated]).when({ type: 'UpdateProperty', input: { type: 'number' } }).thenFails('VALIDATION_FAILED', 'create a new property');
    given(propertyDecider, [propertyCreated]).when({ type: 'UpdateProperty', input: { required: false } }).thenFails('VALIDATION_FAILED', 'required');
    given(propertyDecider, [propertyCreated]).when({ type: 'UpdateProperty', input: { options: [{ value: 'a', label: 'A' }] } }).thenFails('VALIDATION_FAILED', 'missing: b');
    const options = [{ value: 'b', label: 'Bee' }, { value: 'a', label: 'A' }, { value: 'c', label: 'C' }];
    given(propertyDecider, [propertyCreated]).when({ type: 'UpdateProperty', input: { ...select, options, label: 'Stage' } }).then([{ type: 'PropertyUpdated', version: 1, data: { options } }]);
    given(propertyDecider, [propertyCreated]).when({ type: 'UpdateProperty', input: { ...select } }).then([]);
  });
  it('soft-deletes and restores; a deleted property cannot change', () => {
    const deleted: PropertyEvent = { type: 'PropertyDeleted', version: 1, data: { propertyUuid: P } };
    given(propertyDecider, [propertyCreated, deleted]).when({ type: 'UpdateProperty', input: { label: 'x' } }).thenFails('STATE_NOT_ALLOWED', 'Restore property stage first');
    given(propertyDecider, [propertyCreated, deleted]).when({ type: 'RestoreProperty' }).then([{ type: 'PropertyRestored', version: 1, data: { propertyUuid: P } }]);
    given(propertyDecider, [propertyCreated]).when({ type: 'RestoreProperty' }).thenFails('STATE_NOT_ALLOWED');
  });
});

const relationCreated: RelationEvent = {
  type: 'RelationCreated',
  version: 1,
  data: { relationUuid: R, name: 'owner', label: 'owner', description: '', fromObjectUuid: O, toObjectUuid: O2, cardinality: 'MANY_TO_ONE', direction: 'DIRECTED', fromName: 'owner', toName: null, edgeProperties: [], index: 0 },
};

describe('relation decider', () => {
  it('creates with defaults: label and origin name from the name, DIRECTED, index 0', () =>
    given(relationDecider).when({ type: 'CreateRelation', relationUuid: R, fromObjectUuid: O, input: { name: 'owner', toObjectUuid: O2, cardinality: 'MANY_TO_ONE' } }).then([relationCreated]));
  it('needs a target-end name when BIDIRECTIONAL', () => {
    given(relationDecider).when({ type: 'CreateRelation', relationUuid: R, fromObjectUuid: O, input: { name: 'x', toObjectUuid: O2, cardinality: 'ONE_TO_ONE', direction: 'BIDIRECTIONAL' } }).thenFails('VALIDATION_FAILED', 'toName');
    given(relationDecider, [relationCreated]).when({ type: 'UpdateRelation', input: { direction: 'BIDIRECTIONAL' } }).thenFails('VALIDATION_FAILED', 'toName');
    given(relationDecider, [relationCreated]).when({ type: 'UpdateRelation', input: { direction: 'BIDIRECTIONAL', toName: 'owned' } }).then([
      { type: 'RelationUpdated', version: 1, data: { toName: 'owned', direction: 'BIDIRECTIONAL' } },
    ]);
  });
  it('keeps target and cardinality; edge properties may only grow, not required', () => {
    given(relationDecider, [relationCreated]).when({ type: 'UpdateRelation', input: { cardinality: 'ONE_TO_ONE' } }).thenFails('VALIDATION_FAILED', 'cardinality');
    given(relationDecider, [relationCreated]).when({ type: 'UpdateRelation', input: { edgeProperties: [{ name: 'since', type: 'date', required: true }] } }).thenFails('VALIDATION_FAILED', 'cannot be required');
    given(relationDecider, [relationCreated]).when({ type: 'UpdateRelation', input: { index: 3 } }).then([{ type: 'RelationIndexChanged', version: 1, data: { index: 3 } }]);
  });
  it('purges only a soft-deleted relation; a purged one is gone', () => {
    const deleted: RelationEvent = { type: 'RelationDeleted', version: 1, data: { relationUuid: R } };
    const purged: RelationEvent = { type: 'RelationPurged', version: 1, data: { relationUuid: R } };
    given(relationDecider, [relationCreated]).when({ type: 'PurgeRelation' }).thenFails('STATE_NOT_ALLOWED', 'permanent');
    given(relationDecider, [relationCreated, deleted]).when({ type: 'PurgeRelation' }).then([purged]);
    given(relationDecider, [relationCreated, deleted, purged]).when({ type: 'RestoreRelation' }).thenFails('NOT_FOUND');
    given(relationDecider, [relationCreated, deleted]).when({ type: 'ChangeRelationIndex', index: 2 }).thenFails('STATE_NOT_ALLOWED');
  });
});

describe('record link decider', () => {
  const edgeDefinitions = [{ name: 'since', label: 'Since', type: 'date' as const, required: true }];
  const connect = (edgeProperties: Record<string, unknown>) => ({ type: 'ConnectRecords' as const, relationUuid: R, fromRecordUuid: R1, toRecordUuid: R2, edgeProperties, edgeDefinitions });
  const connected: RecordLinkEvent = { type: 'RecordsConnected', version: 1, data: { relationUuid: R, fromRecordUuid: R1, toRecordUuid: R2, edgeProperties: { since: '2024-01-01' } } };
  it('connects once; again with the same values is a no-op, with others an update', () => {
    given(recordLinkDecider).when(connect({ since: '2024-01-01' })).then([connected]);
    given(recordLinkDecider, [connected]).when(connect({ since: '2024-01-01' })).then([]);
    given(recordLinkDecider, [connected]).when(connect({ since: '2025-01-01' })).then([{ type: 'RecordLinkUpdated', version: 1, data: { edgeProperties: { since: '2025-01-01' } } }]);
  });
  it('checks edge values and refuses to disconnect what is not connected', () => {
    given(recordLinkDecider).when(connect({})).thenFails('VALIDATION_FAILED', 'required');
    given(recordLinkDecider).when(connect({ since: '2024-13-45' })).thenFails('VALIDATION_FAILED', 'date');
    given(recordLinkDecider).when(connect({ since: '2024-01-01', extra: 1 })).thenFails('VALIDATION_FAILED', 'no such edge property');
    given(recordLinkDecider).when({ type: 'DisconnectRecords', relationUuid: R, fromRecordUuid: R1, toRecordUuid: R2 }).thenFails('NOT_FOUND');
  });
});

describe('trait decider', () => {
  const facts: PropertyFact[] = [
    { name: 'stage', type: 'string', format: 'select', options: [{ value: 'new', label: 'New' }, { value: 'done', label: 'Done' }] },
    { name: 'title', type: 'string', format: 'text', options: null },
  ];
  const flow = (config: unknown) => ({ type: 'ConfigureTrait' as const, objectUuid: O, trait: 'Flow' as const, config, properties: facts });
  const configured = { type: 'TraitConfigured' as const, version: 1 as const, data: { objectUuid: O, trait: 'Flow' as const, config: { stageProperty: 'stage', stages: ['new', 'done'] } } };
  it('Flow takes the stage property and defaults the order to its options', () => {
    given(traitDecider).when(flow({ stageProperty: 'stage' })).then([configured]);
    given(traitDecider, [configured]).when(flow({ stageProperty: 'stage', stages: ['new', 'done'] })).then([]);
    given(traitDecider).when(flow({ stageProperty: 'title' })).thenFails('VALIDATION_FAILED', 'not select');
    given(traitDecider).when(flow({ stageProperty: 'stage', stages: ['new', 'new'] })).thenFails('VALIDATION_FAILED', 'twice');
  });
  it('Table columns name properties or built-in fields; unknown keys are refused', () => {
    const table = (config: unknown) => ({ type: 'ConfigureTrait' as const, objectUuid: O, trait: 'Table' as const, config, properties: facts });
    expect(traitDecider.decide(table({ columns: [{ property: 'createdAt' }, { property: 'title', width: 300 }] }), traitDecider.initialState())).toHaveLength(1);
    given(traitDecider).when(table({ columns: [{ property: 'ghost' }] })).thenFails('VALIDATION_FAILED', 'ghost');
    given(traitDecider).when(table({ columns: [{ property: 'title' }], colour: 'red' })).thenFails('VALIDATION_FAILED', 'colour');
  });
  it('removes only a configured trait', () => {
    given(traitDecider, [configured]).when({ type: 'RemoveTrait', objectUuid: O, trait: 'Flow' }).then([{ type: 'TraitRemoved', version: 1, data: { objectUuid: O, trait: 'Flow' } }]);
    given(traitDecider).when({ type: 'RemoveTrait', objectUuid: O, trait: 'Flow' }).thenFails('NOT_FOUND');
  });
});
