import { DomainError, type ErrorDetail } from '../kernel/errors.js';
import type { PropertyDefinition } from '../property/property.schemas.js';
import { checkValues, isBlank } from '../record/record.values.js';
import type { FormSettings, InnerFormItem, PropertyItem } from './form.events.js';

/** What a visitor sends: answers to the form's properties, and entries per inner form (by item id). */
export interface Answers {
  answers: Record<string, unknown>;
  inner: Record<string, Record<string, unknown>[]>;
}

/** The definitions a form's answers are checked against: of its object, and of each inner form's object. */
export interface AnswerFacts {
  definitions: readonly PropertyDefinition[];
  innerDefinitions: Readonly<Record<string, readonly PropertyDefinition[]>>;
}

export interface CheckedAnswers {
  values: Record<string, unknown>;
  inner: { item: InnerFormItem; entries: Record<string, unknown>[] }[];
}

const stepLabel = (settings: FormSettings, step: number) => (settings.steps[step]?.title ? `step ${step} "${settings.steps[step]!.title}"` : `step ${step}`);

/** Runs checkValues and keeps its problems, each named for the form and the step of its field. */
function collect(details: ErrorDetail[], where: string, settings: FormSettings, stepOf: (field: string) => number, check: () => Record<string, unknown>): Record<string, unknown> {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'VALIDATION_FAILED') throw err;
    for (const d of err.details) {
      const field = d.field ?? where;
      const text = d.message.startsWith(`${field}: `) ? d.message.slice(field.length + 2) : d.message;
      details.push({ ...d, field, message: `${field} (${stepLabel(settings, stepOf(field))}): ${text}` });
    }
    return {};
  }
}

/**
 * Checks a visitor's answers against the form and its objects' properties: only the properties
 * the form asks, required ones present (the form's or the property's), values valid, inner forms
 * within their entry counts. With `step`, only that step's items. One 400 naming every field and
 * its step.
 */
export function checkAnswers(settings: FormSettings, facts: AnswerFacts, sent: Answers, step?: number): CheckedAnswers {
  const details: ErrorDetail[] = [];
  const inScope = (i: { step: number }) => step === undefined || i.step === step;
  const asked = settings.items.filter((i): i is PropertyItem => i.kind === 'property');
  const askedNames = new Map(asked.map((i) => [i.property, i]));
  for (const name of Object.keys(sent.answers)) {
    const item = askedNames.get(name);
    if (!item) details.push({ field: `answers.${name}`, message: `answers.${name}: the form asks no "${name.slice(0, 60)}"`, type: 'VALIDATION', correctionSuggestion: `Answer only the form's fields: ${asked.map((i) => i.property).slice(0, 30).join(', ')}` });
  }
  const byName = new Map(facts.definitions.map((d) => [d.name, d]));
  // The answers present are checked in one pass; a problem names the step of its field.
  const present: Record<string, unknown> = {};
  const presentDefs: PropertyDefinition[] = [];
  const stepOfField = new Map<string, number>();
  for (const item of asked.filter(inScope)) {
    const def = byName.get(item.property);
    const field = `answers.${item.property}`;
    const value = sent.answers[item.property];
    if (!def) continue;
    if ((item.required || def.required) && isBlank(value)) {
      details.push({ field, message: `${field} (${stepLabel(settings, item.step)}): is required`, type: 'VALIDATION', correctionSuggestion: `Answer ${item.label ?? item.property}` });
      continue;
    }
    if (value === undefined) continue;
    present[item.property] = value;
    presentDefs.push(def.required ? { ...def, required: false } : def);
    stepOfField.set(field, item.step);
  }
  const values = presentDefs.length === 0 ? {} : collect(details, 'answers', settings, (field) => stepOfField.get(field.split('.', 2).join('.')) ?? 0, () => checkValues(present, presentDefs, { creating: false, ignoreErrors: false, at: 'answers' }).values);
  const innerItems = settings.items.filter((i): i is InnerFormItem => i.kind === 'innerForm');
  for (const id of Object.keys(sent.inner)) {
    if (!innerItems.some((i) => i.id === id)) details.push({ field: `inner.${id}`, message: `inner.${id.slice(0, 60)}: the form has no inner form of this id`, type: 'VALIDATION', correctionSuggestion: `Send entries of: ${innerItems.map((i) => i.id).join(', ') || '(no inner forms)'}` });
  }
  const inner: CheckedAnswers['inner'] = [];
  for (const item of innerItems.filter(inScope)) {
    const entries = sent.inner[item.id] ?? [];
    const field = `inner.${item.id}`;
    if (entries.length > item.maxEntries || entries.length < item.minEntries) {
      details.push({ field, message: `${field} (${stepLabel(settings, item.step)}): ${entries.length} entries, the form takes ${item.minEntries} to ${item.maxEntries}`, type: 'VALIDATION', correctionSuggestion: `Send ${item.minEntries} to ${item.maxEntries} entries` });
      continue;
    }
    const defs = facts.innerDefinitions[item.id] ?? [];
    const fieldDefs = defs.filter((d) => item.fields.some((f) => f.property === d.name)).map((d) => ({ ...d, required: d.required || item.fields.some((f) => f.property === d.name && f.required) }));
    const checked = entries.map((entry, k) =>
      collect(details, `${field}[${k}]`, settings, () => item.step, () => {
        const extra = Object.keys(entry).filter((name) => !item.fields.some((f) => f.property === name));
        if (extra.length > 0) throw new DomainError('VALIDATION_FAILED', 'unknown', extra.map((name) => ({ field: `${field}[${k}].${name}`, message: `the inner form asks no "${name.slice(0, 60)}"`, type: 'VALIDATION', correctionSuggestion: `Answer only: ${item.fields.map((f) => f.property).join(', ')}` })));
        return checkValues(entry, fieldDefs, { creating: true, ignoreErrors: false, at: `${field}[${k}]` }).values;
      }),
    );
    inner.push({ item, entries: checked });
  }
  if (details.length > 0) throw new DomainError('VALIDATION_FAILED', details.length === 1 ? details[0]!.message : 'The answers have several problems', details);
  return { values, inner };
}
