import { problems, type Problems } from '../kernel/problems.js';
import { sameJson } from '../kernel/same-json.js';
import { checkIdentifier, checkOptionalText, checkText } from '../object/names.js';
import type { EdgePropertyDefinition, EdgePropertyInput, RelationDefinition, RelationInput } from './relation.schemas.js';

function checkEdgeProperties(p: Problems, input: readonly EdgePropertyInput[]): EdgePropertyDefinition[] {
  const seen = new Set<string>();
  return input.map((e, i) => {
    const name = p.attempt(`body.edgeProperties.${i}.name`, () => checkIdentifier('name', e.name)) ?? e.name;
    if (seen.has(name)) p.add(`body.edgeProperties.${i}.name`, `edge property "${name}" appears twice`, 'Make edge property names unique');
    seen.add(name);
    const label = e.label === undefined ? name : (p.attempt(`body.edgeProperties.${i}.label`, () => checkText('label', e.label ?? '')) ?? name);
    return { name, label, type: e.type, required: e.required ?? false };
  });
}

function checkEnds(p: Problems, direction: string, toName: string | null) {
  if (direction === 'BIDIRECTIONAL' && toName === null) {
    p.add('body.toName', 'a BIDIRECTIONAL relation needs a name at its target end', 'Send toName, e.g. the plural of the origin object ("employees" for a company seen from a person)');
  }
}

/** A new relation from `fromObjectUuid`, checked and normalised; one 400 lists every problem. */
export function checkRelation(fromObjectUuid: string, input: RelationInput): RelationDefinition {
  const p = problems();
  const name = p.attempt('body.name', () => checkIdentifier('name', input.name)) ?? input.name;
  const label = input.label === undefined ? name : (p.attempt('body.label', () => checkText('label', input.label ?? '')) ?? name);
  const description = p.attempt('body.description', () => checkOptionalText('description', input.description)) ?? '';
  const fromName = input.fromName === undefined ? name : (p.attempt('body.fromName', () => checkIdentifier('fromName', input.fromName ?? '')) ?? name);
  const toName = input.toName == null ? null : (p.attempt('body.toName', () => checkIdentifier('toName', input.toName ?? '')) ?? null);
  const direction = input.direction ?? 'DIRECTED';
  checkEnds(p, direction, toName);
  const edgeProperties = checkEdgeProperties(p, input.edgeProperties ?? []);
  p.throwIfAny('The relation has several problems');
  return { name, label, description, fromObjectUuid, toObjectUuid: input.toObjectUuid, cardinality: input.cardinality, direction, fromName, toName, edgeProperties, index: input.index ?? 0 };
}

export type RelationChange = Partial<Pick<RelationDefinition, 'label' | 'description' | 'direction' | 'fromName' | 'toName' | 'edgeProperties'>>;


/**
 * An update by name: the name, the target object and the cardinality are fixed (stored
 * connections depend on them); edge properties may be added (not required ones) and relabelled,
 * never removed, retyped or made required. Returns only what changes.
 */
export function checkRelationChange(current: RelationDefinition, input: Partial<RelationInput>): RelationChange {
  const p = problems();
  const fixed = { toObjectUuid: input.toObjectUuid, cardinality: input.cardinality } as const;
  for (const [field, sent] of Object.entries(fixed)) {
    const now = current[field as keyof typeof fixed];
    if (sent !== undefined && sent !== now) {
      p.add(`body.${field}`, `${field} cannot change once a relation exists (it is ${now})`, `Send ${field} ${now} or leave it out; to change it, create a relation with another name and delete this one`, 'INVALID_VALUE');
    }
  }
  const change: RelationChange = {};
  const text = (field: 'label' | 'description', check: () => string) => {
    const v = p.attempt(`body.${field}`, check);
    if (v !== undefined && v !== current[field]) change[field] = v;
  };
  if (input.label !== undefined) text('label', () => checkText('label', input.label ?? ''));
  if (input.description !== undefined) text('description', () => checkOptionalText('description', input.description));
  if (input.fromName !== undefined) {
    const v = p.attempt('body.fromName', () => checkIdentifier('fromName', input.fromName ?? ''));
    if (v !== undefined && v !== current.fromName) change.fromName = v;
  }
  if (input.toName !== undefined) {
    const v = input.toName === null ? null : p.attempt('body.toName', () => checkIdentifier('toName', input.toName ?? ''));
    if (v !== undefined && v !== current.toName) change.toName = v;
  }
  if (input.direction !== undefined && input.direction !== current.direction) change.direction = input.direction;
  checkEnds(p, change.direction ?? current.direction, change.toName !== undefined ? change.toName : current.toName);
  if (input.edgeProperties !== undefined) {
    const next = checkEdgeProperties(p, input.edgeProperties);
    for (const old of current.edgeProperties) {
      const now = next.find((e) => e.name === old.name);
      if (!now) p.add('body.edgeProperties', `edge property "${old.name}" cannot be removed`, 'Send every existing edge property; you may relabel them and add new ones', 'INVALID_VALUE');
      else if (now.type !== old.type || now.required !== old.required) {
        p.add('body.edgeProperties', `edge property "${old.name}" cannot change its type or required flag`, `Keep type ${old.type} and required ${old.required}`, 'INVALID_VALUE');
      }
    }
    for (const added of next.filter((e) => !current.edgeProperties.some((o) => o.name === e.name))) {
      if (added.required) p.add('body.edgeProperties', `new edge property "${added.name}" cannot be required`, 'Existing connections have no value for it: add it with required false', 'INVALID_VALUE');
    }
    if (!sameJson(next, current.edgeProperties)) change.edgeProperties = next;
  }
  p.throwIfAny('The relation update has several problems');
  return change;
}
