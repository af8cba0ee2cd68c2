import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { problems, type Problems } from '../kernel/problems.js';
import { formLimits } from './form.limits.js';
import type { FormEvent, FormItem, FormSettings, ScoringRule } from './form.events.js';

/** An object as a form sees it: its live properties (name -> type and whether required). */
export interface FormObjectFacts {
  uuid: string;
  name: string;
  properties: Readonly<Record<string, { type: string; required: boolean }>>;
}

/**
 * The schema facts a form is checked against, loaded by the handler: the form's object (null: no
 * live object of that uuid in the company) and, per relation uuid an inner form names, the end
 * the form's object is at and the object at the other end (absent: no live relation that leads
 * from the form's object).
 */
export interface FormFacts {
  object: FormObjectFacts | null;
  relations: Readonly<Record<string, { side: 'origin' | 'target'; other: FormObjectFacts }>>;
}

type ItemInput =
  | { kind: 'property'; id?: string; row: number; column: number; width: number; step?: number; property: string; label?: string | null; placeholder?: string | null; required?: boolean }
  | { kind: 'heading' | 'text'; id?: string; row: number; column: number; width: number; step?: number; text: string }
  | {
      kind: 'innerForm'; id?: string; row: number; column: number; width: number; step?: number; label?: string | null; relationUuid: string;
      fields: { property: string; label?: string | null; required?: boolean }[]; minEntries?: number; maxEntries?: number;
    };

/** What a create or update sends; absent fields keep the form's current values. */
export interface FormInput {
  name?: string;
  label?: string;
  objectUuid?: string;
  style?: FormSettings['style'];
  steps?: { title: string }[];
  items?: ItemInput[];
  scoring?: { property: string; rules: ScoringRule[] } | null;
  successMessage?: string | null;
  redirectUrl?: string | null;
  published?: boolean;
}

export type FormCommand =
  | { type: 'CreateForm'; formUuid: string; input: FormInput; facts: FormFacts }
  | { type: 'UpdateForm'; input: FormInput; facts: FormFacts }
  | { type: 'DeleteForm' }
  | { type: 'RestoreForm' };

export interface FormState {
  exists: boolean;
  deleted: boolean;
  formUuid: string;
  settings: FormSettings | null;
}

const NAME = /^[a-z][a-z0-9_-]{0,99}$/;

function checkPlace(p: Problems, at: string, item: ItemInput, stepCount: number) {
  if (item.row < 0 || item.row >= formLimits.rows) p.add(`${at}.row`, `a row is 0 to ${formLimits.rows - 1}`, 'Place the item on a row of the grid', 'INVALID_VALUE');
  if (item.column < 0 || item.column >= formLimits.columns) p.add(`${at}.column`, `a column is 0 to ${formLimits.columns - 1}`, 'The grid has 12 columns, numbered from 0', 'INVALID_VALUE');
  if (item.width < 1 || item.column + item.width > formLimits.columns) p.add(`${at}.width`, `the item spans columns ${item.column} to ${item.column + item.width - 1}, outside the 12-column grid`, 'Give a width of 1 or more with column + width at most 12', 'INVALID_VALUE');
  const step = item.step ?? 0;
  if (step < 0 || step >= stepCount) p.add(`${at}.step`, `the form has ${stepCount} step(s): step ${step} does not exist`, stepCount > 1 ? `Use a step from 0 to ${stepCount - 1}` : 'Declare steps first, or leave step out', 'INVALID_VALUE');
}

/** Each cell (step, row, column) holds one item at most. */
function checkCells(p: Problems, items: readonly ItemInput[]) {
  const taken = new Map<string, number>();
  items.forEach((item, i) => {
    for (let c = Math.max(0, item.column); c < Math.min(formLimits.columns, item.column + item.width); c++) {
      const key = `${item.step ?? 0}:${item.row}:${c}`;
      const other = taken.get(key);
      if (other !== undefined) {
        p.add(`body.items[${i}]`, `overlaps body.items[${other}] at row ${item.row}, column ${c}${item.step ? ` of step ${item.step}` : ''}`, 'Move the item to a free cell, or narrow one of the two', 'INVALID_VALUE');
        return;
      }
      taken.set(key, i);
    }
  });
}

function innerItem(p: Problems, at: string, item: Extract<ItemInput, { kind: 'innerForm' }>, facts: FormFacts) {
  const relation = facts.relations[item.relationUuid];
  if (!relation) {
    p.add(`${at}.relationUuid`, `relation ${item.relationUuid} does not lead from the form's object to another object`, "Use a live relation whose origin or target is the form's object", 'RELATION_NOT_ALLOWED');
    return null;
  }
  if (item.fields.length === 0 || item.fields.length > formLimits.innerFields) p.add(`${at}.fields`, `an inner form has 1 to ${formLimits.innerFields} fields`, 'Send fields: [{property}]', 'INVALID_VALUE');
  const seen = new Set<string>();
  item.fields.forEach((f, j) => {
    if (!relation.other.properties[f.property]) p.add(`${at}.fields[${j}].property`, `object ${relation.other.name} has no property "${f.property}"`, `Use one of: ${Object.keys(relation.other.properties).slice(0, 30).join(', ')}`, 'NOT_FOUND');
    if (seen.has(f.property)) p.add(`${at}.fields[${j}].property`, `"${f.property}" is named twice`, 'Name each property once');
    seen.add(f.property);
  });
  const max = item.maxEntries ?? formLimits.defaultInnerEntries;
  const min = item.minEntries ?? 0;
  if (max < 1 || max > formLimits.innerEntries) p.add(`${at}.maxEntries`, `maxEntries is 1 to ${formLimits.innerEntries}`, `Send a maxEntries from 1 to ${formLimits.innerEntries}`, 'INVALID_VALUE');
  if (min < 0 || min > max) p.add(`${at}.minEntries`, `minEntries is 0 to maxEntries (${max})`, 'Send a smaller minEntries', 'INVALID_VALUE');
  return {
    kind: 'innerForm' as const, label: item.label ?? null, relationUuid: item.relationUuid, objectUuid: relation.other.uuid, objectName: relation.other.name, side: relation.side,
    fields: item.fields.map((f) => ({ property: f.property, label: f.label ?? null, required: f.required ?? false })), minEntries: min, maxEntries: max,
  };
}

function checkScoring(p: Problems, scoring: FormSettings['scoring'], items: readonly FormItem[], object: FormObjectFacts) {
  if (!scoring) return;
  const target = object.properties[scoring.property];
  if (!target || target.type !== 'number') p.add('body.scoring.property', `object ${object.name} has no number property "${scoring.property}" to store the score in`, 'Name a number property of the form\'s object (create one first)', 'NOT_FOUND');
  if (scoring.rules.length > formLimits.scoringRules) p.add('body.scoring.rules', `at most ${formLimits.scoringRules} rules`, 'Send fewer rules', 'INVALID_VALUE');
  const asked = new Set(items.flatMap((i) => (i.kind === 'property' ? [i.property] : [])));
  scoring.rules.forEach((r, j) => {
    if (!asked.has(r.property)) p.add(`body.scoring.rules[${j}].property`, `the form asks no "${r.property}"`, 'Score a property the form has an item for', 'INVALID_VALUE');
    if (r.operator === 'between' && r.min !== null && r.max !== null && r.min > r.max) p.add(`body.scoring.rules[${j}]`, 'min is greater than max', 'Send min <= max', 'INVALID_VALUE');
  });
}

/** Merges `input` over `base` and checks it against the facts; every problem in one 400. */
export function settingsFrom(input: FormInput, facts: FormFacts, base: FormSettings | null): FormSettings {
  const p = problems();
  const name = input.name ?? base?.name;
  if (name === undefined) p.add('body.name', 'name is required', 'Send a name: lowercase letters, digits, _ and -');
  else if (!NAME.test(name)) p.add('body.name', `"${name.slice(0, 60)}" is not a form name`, 'Use lowercase letters, digits, _ and -, starting with a letter', 'INVALID_VALUE');
  if (!base && !input.objectUuid) p.add('body.objectUuid', 'objectUuid is required', "Send the uuid of the object the form's records are of");
  if (base && input.objectUuid && input.objectUuid !== base.objectUuid) p.add('body.objectUuid', "a form's object cannot change", 'Create another form for the other object', 'INVALID_VALUE');
  const object = facts.object;
  if (!object) p.add('body.objectUuid', 'the object does not exist in the selected company', 'Send the uuid of a live object', 'NOT_FOUND');
  const steps = input.steps ?? base?.steps ?? [];
  if (steps.length > formLimits.steps) p.add('body.steps', `a form has at most ${formLimits.steps} steps`, 'Send fewer steps', 'INVALID_VALUE');
  const stepCount = Math.max(1, steps.length);
  const rawItems: ItemInput[] | FormItem[] = input.items ?? base?.items ?? [];
  if (rawItems.length > formLimits.items) p.add('body.items', `a form has at most ${formLimits.items} items`, 'Send fewer items', 'INVALID_VALUE');
  const items: FormItem[] = [];
  const ids = new Set<string>();
  const properties = new Set<string>();
  rawItems.forEach((item, i) => {
    const at = `body.items[${i}]`;
    checkPlace(p, at, item, stepCount);
    const id = item.id ?? `item-${i}`;
    if (ids.has(id)) p.add(`${at}.id`, `id "${id}" is used twice`, 'Give each item its own id (or leave ids out)');
    ids.add(id);
    const placed = { id, row: item.row, column: item.column, width: item.width, step: item.step ?? 0 };
    if (item.kind === 'property') {
      if (object && !object.properties[item.property]) p.add(`${at}.property`, `object ${object.name} has no property "${item.property}"`, `Use one of: ${Object.keys(object.properties).slice(0, 30).join(', ')}`, 'NOT_FOUND');
      if (properties.has(item.property)) p.add(`${at}.property`, `"${item.property}" is on the form twice`, 'Ask each property once');
      properties.add(item.property);
      items.push({ ...placed, kind: 'property', property: item.property, label: item.label ?? null, placeholder: item.placeholder ?? null, required: item.required ?? false });
    } else if (item.kind === 'innerForm') {
      const inner = object ? innerItem(p, at, item, facts) : null;
      if (inner) items.push({ ...placed, ...inner });
    } else items.push({ ...placed, kind: item.kind, text: item.text });
  });
  checkCells(p, rawItems);
  const scoring = input.scoring === undefined ? (base?.scoring ?? null) : input.scoring;
  if (object) checkScoring(p, scoring, items, object);
  const redirectUrl = input.redirectUrl === undefined ? (base?.redirectUrl ?? null) : input.redirectUrl;
  if (redirectUrl !== null && !/^https?:\/\/[^\s/]+/i.test(redirectUrl)) p.add('body.redirectUrl', 'not an http(s) URL', 'Send an absolute http:// or https:// URL, or null', 'INVALID_VALUE');
  p.throwIfAny('The form has several problems');
  return {
    name: name!, label: input.label ?? base?.label ?? name!, objectUuid: object!.uuid, objectName: object!.name,
    style: input.style ?? base?.style ?? 'standard', steps, items, scoring,
    successMessage: input.successMessage === undefined ? (base?.successMessage ?? null) : input.successMessage,
    redirectUrl, published: input.published ?? base?.published ?? false,
  };
}

const wrongState = (message: string, suggestion: string) =>
  new DomainError('STATE_NOT_ALLOWED', message, [{ message, type: 'GENERAL', correctionSuggestion: suggestion }]);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const formDecider: Decider<FormState, FormCommand, FormEvent> = {
  initialState: () => ({ exists: false, deleted: false, formUuid: '', settings: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateForm': {
        if (state.exists) throw wrongState(`Form ${command.formUuid} exists`, 'Change that form instead');
        return [{ type: 'FormCreated', version: 1, data: { formUuid: command.formUuid, ...settingsFrom(command.input, command.facts, null) } }];
      }
      case 'UpdateForm': {
        if (!state.exists || state.deleted) throw notFound('Form', state.formUuid || 'unknown');
        const settings = settingsFrom(command.input, command.facts, state.settings);
        return same(settings, state.settings) ? [] : [{ type: 'FormUpdated', version: 1, data: { formUuid: state.formUuid, ...settings } }];
      }
      case 'DeleteForm':
        if (!state.exists || state.deleted) throw notFound('Form', state.formUuid || 'unknown');
        return [{ type: 'FormDeleted', version: 1, data: { formUuid: state.formUuid } }];
      case 'RestoreForm':
        if (!state.exists) throw notFound('Form', 'unknown');
        if (!state.deleted) throw wrongState(`Form ${state.formUuid} is not deleted`, 'Only a deleted form can be restored');
        return [{ type: 'FormRestored', version: 1, data: { formUuid: state.formUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'FormCreated':
      case 'FormUpdated': {
        const { formUuid, ...settings } = event.data;
        return { ...state, exists: true, formUuid, settings };
      }
      case 'FormDeleted':
        return { ...state, deleted: true };
      case 'FormRestored':
        return { ...state, deleted: false };
    }
  },
};
