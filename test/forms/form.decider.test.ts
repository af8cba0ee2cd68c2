import { describe, expect, it } from 'vitest';
import { formDecider, type FormFacts, type FormInput } from '../../aggregates/form/form.decider.js';
import { formEventSchema, type FormEvent } from '../../aggregates/form/form.events.js';
import { checkAnswers } from '../../aggregates/form/form.answers.js';
import { scoreOf } from '../../aggregates/form/form.scoring.js';
import { given } from '../support/decider-spec.js';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';

const OBJECT = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const RELATION = '00000000-0000-4000-8000-000000000003';
const FORM = '00000000-0000-4000-8000-000000000004';

const facts: FormFacts = {
  object: { uuid: OBJECT, name: 'lead', properties: { name: { type: 'string', required: false }, budget: { type: 'number', required: false }, score: { type: 'number', required: false } } },
  relations: { [RELATION]: { side: 'origin', other: { uuid: OTHER, name: 'contact', properties: { fullname: { type: 'string', required: true } } } } },
};
const input: FormInput = {
  name: 'lead-form',
  objectUuid: OBJECT,
  steps: [{ title: 'A' }, { title: 'B' }],
  items: [
    { kind: 'property', property: 'name', row: 0, column: 0, width: 6, required: true },
    { kind: 'property', property: 'budget', row: 0, column: 6, width: 6 },
    { kind: 'innerForm', id: 'contacts', relationUuid: RELATION, row: 0, column: 0, width: 12, step: 1, fields: [{ property: 'fullname' }] },
  ],
  scoring: { property: 'score', rules: [{ property: 'budget', operator: 'between', min: 10, max: null, points: 7 }] },
};
const spec = (history: FormEvent[] = []) => given(formDecider, history, { schema: formEventSchema });
const created = () => spec().when({ type: 'CreateForm', formUuid: FORM, input, facts }).events();

describe('form decider', () => {
  it('creates a form with defaults, placing each item and resolving the inner form through its relation', () => {
    const [event] = created();
    expect(event).toMatchObject({ type: 'FormCreated', data: { formUuid: FORM, name: 'lead-form', label: 'lead-form', style: 'standard', published: false, objectName: 'lead' } });
    const items = (event as Extract<FormEvent, { type: 'FormCreated' }>).data.items;
    expect(items.map((i) => i.id)).toEqual(['item-0', 'item-1', 'contacts']);
    expect(items[2]).toMatchObject({ kind: 'innerForm', objectUuid: OTHER, objectName: 'contact', side: 'origin', minEntries: 0, maxEntries: 5, step: 1 });
  });

  it('refuses an item off the grid, a step that does not exist and a rule on an unasked property, naming each', () => {
    const bad: FormInput = {
      ...input,
      items: [{ kind: 'property', property: 'name', row: 0, column: 8, width: 6, step: 3 }],
      scoring: { property: 'score', rules: [{ property: 'budget', operator: 'equals', value: 1, points: 1 }] },
    };
    const err = spec().when({ type: 'CreateForm', formUuid: FORM, input: bad, facts }).thenFails('VALIDATION_FAILED');
    expect(err.details.map((d) => d.field)).toEqual(['body.items[0].width', 'body.items[0].step', 'body.scoring.rules[0].property']);
  });

  it('updates only when something changed, deletes, and restores the same layout', () => {
    const history = created();
    spec(history).when({ type: 'UpdateForm', input: { label: 'lead-form' }, facts }).then([]);
    const [deleted] = spec(history).when({ type: 'DeleteForm' }).events();
    spec([...history, deleted!]).when({ type: 'UpdateForm', input: { label: 'x' }, facts }).thenFails('NOT_FOUND');
    spec([...history, deleted!]).when({ type: 'RestoreForm' }).then([{ type: 'FormRestored', version: 1, data: { formUuid: FORM } }]);
    spec(history).when({ type: 'RestoreForm' }).thenFails('STATE_NOT_ALLOWED');
  });
});

describe('answers', () => {
  const settings = (created()[0] as Extract<FormEvent, { type: 'FormCreated' }>).data;
  const aDefinition = (d: Pick<PropertyDefinition, 'name' | 'type' | 'format'> & Partial<PropertyDefinition>): PropertyDefinition => ({
    label: d.name, options: null, required: false, unique: false, minLength: null, maxLength: null, min: null, max: null, pattern: null, description: '', icon: '', group: null, relationUuid: null, ...d,
  });
  const defs = [aDefinition({ name: 'name', type: 'string', format: 'text' }), aDefinition({ name: 'budget', type: 'number', format: 'number' })];
  const innerDefs = { contacts: [aDefinition({ name: 'fullname', type: 'string', format: 'text', required: true })] };

  it('checks one step alone, and names the step of every problem', () => {
    expect(() => checkAnswers(settings, { definitions: defs, innerDefinitions: innerDefs }, { answers: { name: 'x' }, inner: {} }, 0)).not.toThrow();
    try {
      checkAnswers(settings, { definitions: defs, innerDefinitions: innerDefs }, { answers: { budget: 'many', extra: 1 }, inner: { contacts: [{}] } });
      expect.unreachable();
    } catch (err) {
      const messages = (err as { details: { message: string }[] }).details.map((d) => d.message);
      expect(messages).toEqual([
        'answers.extra: the form asks no "extra"',
        'answers.name (step 0 "A"): is required',
        expect.stringContaining('answers.budget (step 0 "A"): '),
        'inner.contacts[0].fullname (step 1 "B"): is required',
      ]);
    }
  });

  it('scores the sum of the matching rules', () => {
    expect(scoreOf(settings.scoring!.rules, { budget: 10 })).toBe(7);
    expect(scoreOf(settings.scoring!.rules, { budget: 9 })).toBe(0);
    expect(scoreOf([{ property: 'c', operator: 'oneOf', values: ['a', 'b'], points: 2 }, { property: 'c', operator: 'contains', value: 'B', points: 3 }], { c: ['b'] })).toBe(5);
  });
});
