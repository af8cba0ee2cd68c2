import { problems, type Problems } from '../kernel/problems.js';
import { sameJson } from '../kernel/same-json.js';
import { checkGroup, checkIdentifier, checkOptionalText, checkText } from '../object/names.js';
import {
  formatTypes,
  immutablePropertyFields,
  optionFormats,
  textFormats,
  type PropertyDefinition,
  type PropertyInput,
  type PropertyOption,
} from './property.schemas.js';

/** What the handler found about the relation a linked property names (null: no such relation in the company). */
export interface LinkedRelationFact {
  relationUuid: string;
  deleted: boolean;
  /** Whether the property's object is one end of the relation. */
  touchesObject: boolean;
}

function checkOptions(p: Problems, options: readonly PropertyOption[]): PropertyOption[] {
  const seen = new Set<string>();
  const out: PropertyOption[] = [];
  for (const [i, o] of options.entries()) {
    const value = o.value.trim();
    const label = o.label.trim();
    if (!value || !label) p.add(`body.options.${i}`, 'value and label must not be blank', 'Give every option a value and a label');
    if (seen.has(value)) p.add(`body.options.${i}.value`, `option value "${value}" appears twice`, 'Make option values unique');
    seen.add(value);
    out.push({ value, label });
  }
  return out;
}

/** The regular expression a value of a property with `pattern` must match, as a whole. */
export const patternRegExp = (pattern: string) => new RegExp(`^(?:${pattern})$`, 'u');

function checkPattern(p: Problems, pattern: string) {
  try {
    patternRegExp(pattern);
  } catch (err) {
    p.add('body.pattern', `not a valid regular expression (${(err as Error).message})`, 'Send a JavaScript regular expression, e.g. ^[A-Z]{2}[0-9]{4}$', 'INVALID_VALUE');
  }
}

const MEDIA_TYPE = /^[a-z]+\/([a-z0-9][a-z0-9.+-]*|\*)$/;

/** Checks a new property's definition and returns it normalised; throws one 400 listing every problem. */
export function checkDefinition(input: PropertyInput, linked: LinkedRelationFact | null): PropertyDefinition {
  const p = problems();
  const name = p.attempt('body.name', () => checkIdentifier('name', input.name)) ?? input.name;
  const label = p.attempt('body.label', () => checkText('label', input.label)) ?? input.label;
  const { type, format } = input;
  const allowed = formatTypes[format];
  if (!allowed.includes(type)) p.add('body.type', `format ${format} does not take type ${type}`, `Use type ${allowed.join(' or ')} with format ${format}, or pick another format`, 'INVALID_VALUE');

  const isText = textFormats.includes(format);
  let options: PropertyOption[] | null = null;
  if (optionFormats.includes(format)) {
    if (!input.options?.length) p.add('body.options', `format ${format} needs a list of options`, 'Send options as [{"value": "new", "label": "New"}, ...]');
    else options = checkOptions(p, input.options);
  } else if (format === 'file' && input.options?.length) {
    // A file property's options are the types it accepts (docs/files.md), e.g. image/png or image/*.
    options = checkOptions(p, input.options);
    options.forEach((o, i) => MEDIA_TYPE.test(o.value) || p.add(`body.options.${i}.value`, `"${o.value}" is not a media type`, 'Use a type like image/png, or a family like image/*', 'INVALID_VALUE'));
  } else if (input.options?.length) {
    p.add('body.options', `format ${format} takes no options`, 'Leave options out, or use format select or multi-select (or file, to list its accepted types)');
  }

  const minLength = input.minLength ?? null;
  const maxLength = input.maxLength ?? null;
  if ((minLength !== null || maxLength !== null) && !isText) p.add('body.minLength', `format ${format} takes no length limits`, `Length limits apply to the text formats: ${textFormats.join(', ')}`);
  if (minLength !== null && maxLength !== null && minLength > maxLength) p.add('body.minLength', `minLength ${minLength} is above maxLength ${maxLength}`, 'Make minLength at most maxLength', 'INVALID_VALUE');

  const min = input.min ?? null;
  const max = input.max ?? null;
  if ((min !== null || max !== null) && type !== 'number') p.add('body.min', `type ${type} takes no min or max`, 'min and max apply to properties of type number');
  if (min !== null && max !== null && min > max) p.add('body.min', `min ${min} is above max ${max}`, 'Make min at most max', 'INVALID_VALUE');

  const pattern = input.pattern ?? null;
  if (pattern !== null) {
    if (!isText) p.add('body.pattern', `format ${format} takes no pattern`, `A pattern applies to the text formats: ${textFormats.join(', ')}`);
    else checkPattern(p, pattern);
  }

  const unique = input.unique ?? false;
  if (unique && (type === 'boolean' || type === 'json' || format === 'multi-select')) p.add('body.unique', `a ${format} property of type ${type} cannot be unique`, 'Leave unique out for booleans, json and multi-select');

  const relationUuid = input.relationUuid ?? null;
  if (format === 'linked') {
    if (relationUuid === null) p.add('body.relationUuid', 'a linked property needs the relation that backs it', 'Create a relation of this object first, then send its uuid as relationUuid');
    else if (!linked) p.add('body.relationUuid', `no relation ${relationUuid} in the selected company`, "Send the uuid of one of this object's relations", 'INVALID_VALUE');
    else if (linked.deleted) p.add('body.relationUuid', `relation ${relationUuid} is deleted`, 'Restore the relation first, or use another relation', 'INVALID_VALUE');
    else if (!linked.touchesObject) p.add('body.relationUuid', `relation ${relationUuid} does not start or end at this object`, 'Use a relation whose origin or target is this object', 'RELATION_NOT_ALLOWED');
  } else if (relationUuid !== null) {
    p.add('body.relationUuid', `format ${format} is not backed by a relation`, 'Leave relationUuid out, or use format linked');
  }

  const description = p.attempt('body.description', () => checkOptionalText('description', input.description)) ?? '';
  const icon = p.attempt('body.icon', () => checkOptionalText('icon', input.icon, 200)) ?? '';
  const group = p.attempt('body.group', () => checkGroup(input.group)) ?? null;
  p.throwIfAny('The property definition has several problems');
  return { name, label, type, format, options, required: input.required ?? false, unique, minLength, maxLength, min, max, pattern, description, icon, group, relationUuid };
}

export interface DisplayChange {
  label?: string;
  description?: string;
  icon?: string;
  group?: string | null;
  options?: PropertyOption[];
}


/**
 * An update of an existing property: the immutable fields may be sent only with their current
 * values; display fields and option labels may change, and options may be added or reordered but
 * never removed. Returns only what actually changes.
 */
export function checkChange(current: PropertyDefinition, input: Partial<PropertyInput>): DisplayChange {
  const p = problems();
  for (const field of immutablePropertyFields) {
    const sent = input[field];
    if (sent === undefined) continue;
    const value = typeof sent === 'string' && field === 'name' ? sent.trim() : sent;
    if (!sameJson(value, current[field])) {
      p.add(
        `body.${field}`,
        `${field} cannot change once a property exists (it is ${JSON.stringify(current[field])})`,
        `Send ${field} as ${JSON.stringify(current[field])} or leave it out; to change it, create a new property (e.g. "${current.name}_v2") and move the values to it`,
        'INVALID_VALUE',
      );
    }
  }
  const change: DisplayChange = {};
  if (input.label !== undefined) {
    const label = p.attempt('body.label', () => checkText('label', input.label ?? ''));
    if (label !== undefined && label !== current.label) change.label = label;
  }
  if (input.description !== undefined) {
    const description = p.attempt('body.description', () => checkOptionalText('description', input.description));
    if (description !== undefined && description !== current.description) change.description = description;
  }
  if (input.icon !== undefined) {
    const icon = p.attempt('body.icon', () => checkOptionalText('icon', input.icon, 200));
    if (icon !== undefined && icon !== current.icon) change.icon = icon;
  }
  if (input.group !== undefined) {
    const group = p.attempt('body.group', () => checkGroup(input.group));
    if (group !== undefined && group !== current.group) change.group = group;
  }
  if (input.options !== undefined) {
    if (current.options === null) {
      if (input.options?.length) p.add('body.options', `format ${current.format} takes no options`, 'Leave options out');
    } else {
      const next = checkOptions(p, input.options ?? []);
      const kept = new Set(next.map((o) => o.value));
      const removed = current.options.filter((o) => !kept.has(o.value)).map((o) => o.value);
      if (removed.length > 0) {
        p.add('body.options', `options cannot be removed (missing: ${removed.join(', ')})`, 'Send every existing option value; you may change labels, reorder, and add new options', 'INVALID_VALUE');
      } else if (!sameJson(next, current.options)) change.options = next;
    }
  }
  p.throwIfAny('The property update has several problems');
  return change;
}
