import { describe, expect, it } from 'vitest';
import { recordDecider, type RecordCommand, type RecordState } from '../../aggregates/record/record.decider.js';
import type { RecordEvent } from '../../aggregates/record/record.events.js';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';

const R = '11111111-1111-4111-8111-111111111111';
const O = '22222222-2222-4222-8222-222222222222';
const [U1, U2] = ['33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444'];
const email: PropertyDefinition = { name: 'email', label: 'E-mail', type: 'string', format: 'email', options: null, required: false, unique: false, minLength: null, maxLength: null, min: null, max: null, pattern: null, description: '', icon: '', group: null, relationUuid: null };

const fold = (events: RecordEvent[], from = recordDecider.initialState()) => events.reduce(recordDecider.evolve, from);
const given = (...commands: RecordCommand[]): RecordState => commands.reduce((s, c) => fold(recordDecider.decide(c, s), s), recordDecider.initialState());
const create = (userUuid: string | null, value = 'a@example.test'): RecordCommand => ({ type: 'CreateRecord', uuid: R, objectUuid: O, objectName: 'people', properties: { email: value }, extends: [], definitions: [email], ignoreErrors: false, userUuid });
const update = (value: string, userUuid: string | null): RecordCommand => ({ type: 'UpdateRecord', properties: { email: value }, definitions: [email], ignoreErrors: false, userLink: { emailProperty: 'email', userUuid } });
const types = (events: RecordEvent[]) => events.map((e) => [e.type, (e.data as { userUuid?: string }).userUuid ?? null, (e.data as { via?: string }).via ?? null]);

describe('record decider: the User trait link', () => {
  it('a create links the member its e-mail names, in the same append', () => {
    expect(types(recordDecider.decide(create(U1), recordDecider.initialState()))).toEqual([['RecordCreated', null, null], ['RecordUserLinked', U1, 'email']]);
    expect(types(recordDecider.decide(create(null), recordDecider.initialState()))).toEqual([['RecordCreated', null, null]]);
    expect(given(create(U1)).user).toBe(U1);
  });

  it('an e-mail change moves the link, ends it, or leaves it; other changes never touch it', () => {
    const linked = given(create(U1));
    expect(types(recordDecider.decide(update('b@example.test', U2), linked))).toEqual([['RecordUpdated', null, null], ['RecordUserLinked', U2, 'email']]);
    expect(types(recordDecider.decide(update('b@example.test', null), linked))).toEqual([['RecordUpdated', null, null], ['RecordUserUnlinked', U1, 'email']]);
    expect(types(recordDecider.decide(update('A@example.test', U1), linked))).toEqual([['RecordUpdated', null, null]]);
    expect(recordDecider.decide(update('a@example.test', U2), linked)).toEqual([]);
    const unlinked = given(create(null));
    expect(types(recordDecider.decide(update('c@example.test', null), unlinked))).toEqual([['RecordUpdated', null, null]]);
  });

  it('explicit links: idempotent, live records only; unlinking an unlinked record does nothing', () => {
    const rec = given(create(null));
    expect(types(recordDecider.decide({ type: 'LinkUser', userUuid: U2 }, rec))).toEqual([['RecordUserLinked', U2, 'explicit']]);
    expect(recordDecider.decide({ type: 'LinkUser', userUuid: U1 }, given(create(U1)))).toEqual([]);
    expect(recordDecider.decide({ type: 'UnlinkUser' }, rec)).toEqual([]);
    expect(types(recordDecider.decide({ type: 'UnlinkUser' }, given(create(U1))))).toEqual([['RecordUserUnlinked', U1, 'explicit']]);
    const archived = given(create(null), { type: 'ArchiveRecord', mode: 'archive' });
    expect(() => recordDecider.decide({ type: 'LinkUser', userUuid: U1 }, archived)).toThrow(/archived/);
    expect(given(create(U1), { type: 'UnlinkUser' }).user).toBeNull();
  });
});
