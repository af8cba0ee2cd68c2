import { describe, expect, it } from 'vitest';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import { recordDecider, type RecordCommand } from '../../aggregates/record/record.decider.js';
import { recordEventSchema, type RecordEvent } from '../../aggregates/record/record.events.js';
import { given } from '../support/decider-spec.js';

const R = '00000000-0000-4000-8000-000000000001';
const O = '00000000-0000-4000-8000-00000000000a';
const X = '00000000-0000-4000-8000-00000000000b';

const def = (name: string, type: 'string' | 'number', more: Partial<PropertyDefinition> = {}): PropertyDefinition => ({
  name, label: name, type, format: type === 'string' ? 'text' : 'number', options: [], required: false, unique: false,
  minLength: null, maxLength: null, min: null, max: null, pattern: null, description: '', icon: '', group: null, relationUuid: null, ...more,
});
const definitions = [def('title', 'string', { required: true }), def('n', 'number')];
const schema = { schema: recordEventSchema };
const record = (history: RecordEvent[] = []) => given(recordDecider, history, schema);

const create = (properties: Record<string, unknown>, more: Partial<Extract<RecordCommand, { type: 'CreateRecord' }>> = {}): RecordCommand => ({
  type: 'CreateRecord', uuid: R, objectUuid: O, objectName: 'deal', properties, extends: [], definitions, ignoreErrors: false, ...more,
});
const created: RecordEvent = { type: 'RecordCreated', version: 1, data: { uuid: R, objectUuid: O, objectName: 'deal', properties: { title: 'Ab', n: 1 } } };
const archived: RecordEvent = { type: 'RecordArchived', version: 1, data: { uuid: R, objectName: 'deal', mode: 'archive' } };
const extended: RecordEvent = { type: 'RecordExtended', version: 1, data: { uuid: R, objectName: 'deal', extendedObjectUuid: X, extendedObjectName: 'extra' } };
const update = (properties: Record<string, unknown>): RecordCommand => ({ type: 'UpdateRecord', properties, definitions, ignoreErrors: false });

describe('record decider', () => {
  it('creates once, without null values, extending each other object once', () => {
    record().when(create({ title: 'Ab', n: null }, { extends: [X, X, O] })).then([
      { type: 'RecordCreated', version: 1, data: { uuid: R, objectUuid: O, objectName: 'deal', properties: { title: 'Ab' }, extends: [X] } },
    ]);
    record([created]).when(create({ title: 'Ab' })).thenFails('CONFLICT', 'already exists');
  });

  it('checks values against the definitions: required, known, typed; ignoreErrors drops what it may', () => {
    record().when(create({ n: 1 })).thenFails('VALIDATION_FAILED', 'title');
    record().when(create({ title: 'Ab', other: 1 })).thenFails('VALIDATION_FAILED', 'no property');
    record().when(create({ title: 'Ab', n: 'many' })).thenFails('VALIDATION_FAILED', 'body.properties.n');
    const [e] = record().when(create({ title: 'Ab', other: 1 }, { ignoreErrors: true })).events();
    expect(e!.data).toMatchObject({ properties: { title: 'Ab' } });
  });

  it('an update records each changed value before and after; the same values are no event', () => {
    record([created]).when(update({ title: 'Ab', n: 2 })).then([{ type: 'RecordUpdated', version: 1, data: { uuid: R, objectName: 'deal', changes: { n: { before: 1, after: 2 } } } }]);
    record([created]).when(update({ title: 'Ab', n: 1 })).then([]);
    record([created]).when(update({ n: null })).then([{ type: 'RecordUpdated', version: 1, data: { uuid: R, objectName: 'deal', changes: { n: { before: 1, after: null } } } }]);
    record().when(update({ n: 2 })).thenFails('NOT_FOUND');
  });

  it('archives and restores, each only from the right state; an archived record is not changed', () => {
    record([created]).when({ type: 'ArchiveRecord', mode: 'archive' }).then([archived]);
    record([created, archived]).when({ type: 'ArchiveRecord', mode: 'archive' }).thenFails('STATE_NOT_ALLOWED', 'archived');
    record([created, archived]).when(update({ n: 2 })).thenFails('STATE_NOT_ALLOWED', 'Restore record');
    record([created, archived]).when({ type: 'RestoreRecord' }).then([{ type: 'RecordRestored', version: 1, data: { uuid: R, objectName: 'deal' } }]);
    record([created]).when({ type: 'RestoreRecord' }).thenFails('STATE_NOT_ALLOWED', 'not archived');
  });

  it('extends once, and removes only an extension it has', () => {
    record([created]).when({ type: 'ExtendRecord', objectUuid: X, objectName: 'extra' }).then([extended]);
    record([created, extended]).when({ type: 'ExtendRecord', objectUuid: X, objectName: 'extra' }).then([]);
    record([created]).when({ type: 'ExtendRecord', objectUuid: O, objectName: 'deal' }).then([]);
    record([created, extended]).when({ type: 'RemoveExtension', objectUuid: X, objectName: 'extra' }).then([
      { type: 'RecordExtensionRemoved', version: 1, data: { uuid: R, objectName: 'deal', extendedObjectUuid: X, extendedObjectName: 'extra' } },
    ]);
    record([created]).when({ type: 'RemoveExtension', objectUuid: X, objectName: 'extra' }).thenFails('NOT_FOUND');
  });

  it('folds its events into the state the write path reads from the row', () => {
    const { state } = record([created, extended, archived, { type: 'RecordUpdated', version: 1, data: { uuid: R, objectName: 'deal', changes: { n: { before: 1, after: null } } } }]);
    expect(state).toEqual({ exists: true, uuid: R, objectUuid: O, objectName: 'deal', extends: [X], properties: { title: 'Ab' }, archived: true, user: null });
  });
});
