import type { ErrorType } from '../kernel/errors.js';
import { problems, type Problems } from '../kernel/problems.js';
import type { PropertyDefinition } from '../property/property.schemas.js';
import { badString, canonicalDate, canonicalDateTime, isPlainObject, pollutingKeys } from '../record-filter/values.js';
import type { FieldType, FilterField } from '../record-filter/filter.compile.js';
import { CONTROL } from './record.index-doc.js';
import { isUuid } from '../kernel/uuid.js';

/** Limits on what one record may hold. */
export const recordLimits = {
  properties: 500,
  /** Characters of a plain text value (text, email, url, phone, select). */
  text: 10_000,
  /** Characters of a long text value (textarea, rich text), and the JSON size of a json value. */
  longText: 200_000,
  listItems: 1_000,
  jsonDepth: 20,
} as const;

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const PHONE = /^\+?[0-9][0-9 ().\-/]{2,30}$/;

/**
 * Refuses what must never reach the store, whatever the property: NUL and lone surrogates in any
 * string or key, keys that pollute prototypes, and nesting deeper than the limit. Critical: never
 * skipped by ignoreErrors.
 */
export function scanJson(p: Problems, at: string, value: unknown, depth = 0): void {
  if (typeof value === 'string') {
    const bad = badString(value);
    if (bad) p.add(at, `the string ${bad}`, 'Remove the character; strings may not hold NUL or unpaired surrogates', 'INVALID_VALUE');
    return;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) {
    p.add(at, 'is not a finite number', 'Send a finite number', 'INVALID_VALUE');
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= recordLimits.jsonDepth) {
    p.add(at, `nests deeper than ${recordLimits.jsonDepth} levels`, 'Flatten the value', 'INVALID_VALUE');
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => scanJson(p, `${at}.${i}`, v, depth + 1));
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (pollutingKeys.has(k)) p.add(`${at}.${k}`, `the key "${k}" is not allowed`, `Rename the key; ${[...pollutingKeys].join(', ')} are refused`, 'INVALID_VALUE');
    else if (badString(k)) p.add(at, `a key ${badString(k)}`, 'Remove the character from the key', 'INVALID_VALUE');
    else scanJson(p, `${at}.${k}`, v, depth + 1);
  }
}

/** How the filter language types a property's values. */
export function filterTypeOf(def: Pick<PropertyDefinition, 'type' | 'format'>): FieldType {
  if (def.format === 'multi-select') return 'list';
  switch (def.type) {
    case 'string':
      return 'text';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime';
    case 'json':
      return def.format === 'linked' || def.format === 'file' ? 'list' : 'json';
  }
}

export const filterFieldOf = (def: Pick<PropertyDefinition, 'name' | 'type' | 'format'>): FilterField => ({
  name: def.name,
  type: filterTypeOf(def),
  ...(def.format === 'select' || def.format === 'checkbox' || def.type === 'boolean' ? { fewValues: true } : {}),
});

/** A problem with one value: critical ones are never skipped; the others are skipped by ignoreErrors. */
interface Issue {
  message: string;
  suggestion: string;
  type: ErrorType;
  critical: boolean;
}

const critical = (message: string, suggestion: string, type: ErrorType = 'INVALID_VALUE'): Issue => ({ message, suggestion, type, critical: true });
const soft = (message: string, suggestion: string, type: ErrorType = 'INVALID_VALUE'): Issue => ({ message, suggestion, type, critical: false });

const chars = (s: string) => [...s].length;
const optionHint = (def: PropertyDefinition) => (def.options ?? []).slice(0, 30).map((o) => o.value).join(', ');

function checkText(def: PropertyDefinition, v: string, issues: Issue[]): void {
  const max = def.format === 'rich-text' || def.format === 'textarea' ? recordLimits.longText : recordLimits.text;
  if (v.length > max) {
    issues.push(critical(`is longer than ${max} characters`, `Shorten it to at most ${max} characters`));
    return;
  }
  if (CONTROL.test(v)) {
    issues.push(critical('contains a control character', 'Remove control characters; text may hold tab, line feed and carriage return'));
    return;
  }
  const n = chars(v);
  if (def.minLength !== null && n < def.minLength) issues.push(soft(`has ${n} characters, fewer than ${def.minLength}`, `Send at least ${def.minLength} characters`));
  if (def.maxLength !== null && n > def.maxLength) issues.push(soft(`has ${n} characters, more than ${def.maxLength}`, `Shorten it to at most ${def.maxLength} characters`));
  if (def.pattern !== null && !new RegExp(`^(?:${def.pattern})$`, 'u').test(v)) issues.push(soft(`does not match the pattern ${def.pattern}`, `Send a value matching ${def.pattern}`));
  if (def.format === 'email' && !EMAIL.test(v)) issues.push(soft(`"${v.slice(0, 80)}" is not an e-mail address`, 'Send an address like name@example.com', 'INVALID_EMAIL'));
  if (def.format === 'url' && !isUrl(v)) issues.push(soft(`"${v.slice(0, 80)}" is not an http(s) URL`, 'Send an absolute URL like https://example.com/page'));
  if (def.format === 'phone' && !PHONE.test(v)) issues.push(soft(`"${v.slice(0, 80)}" is not a phone number`, 'Send digits with an optional leading +, e.g. +44 20 7946 0958'));
  if (def.format === 'select' && !(def.options ?? []).some((o) => o.value === v)) {
    issues.push(soft(`"${v.slice(0, 80)}" is not one of the options`, `Use one of: ${optionHint(def)}`));
  }
}

function isUrl(v: string) {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Checks one non-null value against its definition; returns the normalised value and its issues. */
export function checkValue(def: PropertyDefinition, v: unknown): { value: unknown; issues: Issue[] } {
  const issues: Issue[] = [];
  if (def.format === 'multi-select') {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return { value: v, issues: [critical('expected a list of option values', `Send an array of strings, e.g. ["${def.options?.[0]?.value ?? 'a'}"]`)] };
    if (v.length > recordLimits.listItems) return { value: v, issues: [critical(`has more than ${recordLimits.listItems} items`, 'Send fewer items')] };
    const value = [...new Set(v as string[])];
    const unknown = value.filter((x) => !(def.options ?? []).some((o) => o.value === x));
    if (unknown.length) issues.push(soft(`${unknown.slice(0, 5).map((x) => `"${x.slice(0, 40)}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not among the options`, `Use only: ${optionHint(def)}`));
    return { value, issues };
  }
  switch (def.type) {
    case 'string': {
      if (typeof v !== 'string') return { value: v, issues: [critical(`expected a string, got ${kind(v)}`, `Send ${def.name} as a string`)] };
      if ((def.format === 'linked' || def.format === 'file') && !isUuid(v)) return { value: v, issues: [critical(`"${v.slice(0, 80)}" is not a uuid`, `Send the uuid of the ${def.format === 'file' ? 'file' : 'linked record'}`)] };
      checkText(def, v, issues);
      return { value: def.format === 'linked' || def.format === 'file' ? v.toLowerCase() : v, issues };
    }
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return { value: v, issues: [critical(`expected a number, got ${kind(v)}`, `Send ${def.name} as a JSON number`)] };
      if (def.min !== null && v < def.min) issues.push(soft(`${v} is below the minimum ${def.min}`, `Send a number of at least ${def.min}`));
      if (def.max !== null && v > def.max) issues.push(soft(`${v} is above the maximum ${def.max}`, `Send a number of at most ${def.max}`));
      return { value: v, issues };
    case 'boolean':
      return typeof v === 'boolean' ? { value: v, issues } : { value: v, issues: [critical(`expected true or false, got ${kind(v)}`, `Send ${def.name} as true or false`)] };
    case 'date': {
      const d = canonicalDate(v);
      return d ? { value: d, issues } : { value: v, issues: [critical(`${JSON.stringify(v)?.slice(0, 80)} is not a date`, 'Send a calendar date as YYYY-MM-DD, e.g. 2024-05-31', 'INVALID_DATE')] };
    }
    case 'datetime': {
      const d = canonicalDateTime(v, true);
      return d
        ? { value: d, issues }
        : { value: v, issues: [critical(`${JSON.stringify(v)?.slice(0, 80)} is not a date-time`, 'Send ISO 8601 with a zone, e.g. 2024-05-31T14:30:00Z, or epoch milliseconds', 'INVALID_DATE')] };
    }
    case 'json': {
      if (def.format === 'linked' || def.format === 'file') {
        if (!Array.isArray(v) || !v.every((x) => isUuid(x))) return { value: v, issues: [critical('expected a list of uuids', `Send ${def.name} as an array of uuids`)] };
        if (v.length > recordLimits.listItems) return { value: v, issues: [critical(`has more than ${recordLimits.listItems} items`, 'Send fewer items')] };
        return { value: [...new Set((v as string[]).map((x) => x.toLowerCase()))], issues };
      }
      if (JSON.stringify(v).length > recordLimits.longText) return { value: v, issues: [critical(`is larger than ${recordLimits.longText} characters of JSON`, 'Send a smaller value')] };
      return { value: v, issues };
    }
  }
}

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)?.slice(0, 40)}`);

/** Whether a value counts as absent for `required`: null, missing, empty string or empty list. */
export const isBlank = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

export interface CheckedValues {
  /** Normalised values; on update, null clears a value. */
  values: Record<string, unknown>;
}

/**
 * Checks sent values against the live definitions. `creating`: required properties must be
 * present. With `ignoreErrors` the non-critical problems (required, length, range, pattern,
 * e-mail / url / phone format, options, unknown properties) are skipped: the value is kept as sent,
 * an unknown property is dropped. Throws one 400 listing every problem left.
 */
export function checkValues(
  sent: Readonly<Record<string, unknown>>,
  definitions: readonly PropertyDefinition[],
  opts: { creating: boolean; ignoreErrors: boolean; at?: string },
): CheckedValues {
  const at = opts.at ?? 'body.properties';
  const p = problems();
  const byName = new Map(definitions.map((d) => [d.name, d]));
  const keys = Object.keys(sent);
  if (keys.length > recordLimits.properties) p.add(at, `has ${keys.length} properties, more than ${recordLimits.properties}`, 'Send fewer properties per request');
  const values: Record<string, unknown> = {};
  for (const name of keys) {
    const field = `${at}.${name}`;
    const raw = sent[name];
    if (pollutingKeys.has(name) || badString(name)) {
      p.add(field, `"${name.slice(0, 60)}" is not an allowed property name`, 'Use the name of one of the object\'s properties', 'INVALID_VALUE');
      continue;
    }
    scanJson(p, field, raw);
    const def = byName.get(name);
    if (!def) {
      if (!opts.ignoreErrors) p.add(field, `the object has no property "${name}"`, `Use one of: ${[...byName.keys()].slice(0, 30).join(', ') || '(no properties yet)'}; or pass ignoreErrors=true to drop unknown ones`);
      continue;
    }
    if (raw === null || raw === undefined) {
      if (def.required && !opts.ignoreErrors) p.add(field, 'is required and cannot be cleared', `Send a value for ${name}`);
      values[name] = null;
      continue;
    }
    const { value, issues } = checkValue(def, raw);
    for (const issue of issues) if (issue.critical || !opts.ignoreErrors) p.add(field, issue.message, issue.suggestion, issue.type);
    if (def.required && isBlank(value) && !opts.ignoreErrors) p.add(field, 'is required and cannot be empty', `Send a value for ${name}`);
    values[name] = value;
  }
  if (opts.creating && !opts.ignoreErrors) {
    for (const def of definitions) {
      if (def.required && !(def.name in values)) p.add(`${at}.${def.name}`, 'is required', `Send a value for ${def.name} (${def.type}${def.format !== def.type ? `, ${def.format}` : ''})`);
    }
  }
  p.throwIfAny('The record has several invalid values');
  return { values };
}

/** A stable text of a JSON value (object keys sorted), for comparing values. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isPlainObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}
