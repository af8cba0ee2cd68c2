import type { z } from 'zod';
import { problems, type Problems } from '../kernel/problems.js';
import type { PropertyFormat, PropertyOption, PropertyType } from '../property/property.schemas.js';
import { textFormats } from '../property/property.schemas.js';
import { builtInFields, traitConfigSchemas, type FlowConfig, type PageConfig, type TableConfig, type TraitConfig, type TraitName, type UserConfig } from './trait.schemas.js';

/** What a trait may refer to: the object's live properties, loaded by the handler. */
export interface PropertyFact {
  name: string;
  type: PropertyType;
  format: PropertyFormat;
  options: readonly PropertyOption[] | null;
}

function zodProblems(p: Problems, error: z.ZodError) {
  for (const issue of error.issues) {
    const field = ['body', ...issue.path.map(String)].join('.');
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '';
    p.add(field, issue.message, keys ? `Remove the unknown field(s): ${keys}` : `Correct ${field}; see the trait's schema in the OpenAPI document`, 'INVALID_VALUE');
  }
}

function property(p: Problems, facts: readonly PropertyFact[], field: string, name: string, accept: (f: PropertyFact) => boolean, wanted: string) {
  const fact = facts.find((f) => f.name === name);
  if (!fact) p.add(field, `the object has no live property "${name}"`, `Use one of the object's properties${facts.length ? `: ${facts.map((f) => f.name).join(', ')}` : ' (it has none yet)'}`, 'INVALID_VALUE');
  else if (!accept(fact)) p.add(field, `property "${name}" is ${fact.format}, not ${wanted}`, `Use a ${wanted} property`, 'INVALID_VALUE');
  return fact;
}

function checkFlow(p: Problems, c: FlowConfig, facts: readonly PropertyFact[]): FlowConfig {
  const stage = property(p, facts, 'body.stageProperty', c.stageProperty, (f) => f.format === 'select', 'select');
  if (!stage?.options || stage.format !== 'select') return c;
  const values = stage.options.map((o) => o.value);
  const stages = c.stages ?? values;
  for (const [i, s] of stages.entries()) {
    if (!values.includes(s)) p.add(`body.stages.${i}`, `"${s}" is not an option of ${stage.name}`, `Use option values of ${stage.name}: ${values.join(', ')}`, 'INVALID_VALUE');
    if (stages.indexOf(s) !== i) p.add(`body.stages.${i}`, `stage "${s}" appears twice`, 'List each stage once');
  }
  return { stageProperty: c.stageProperty, stages };
}

function checkTable(p: Problems, c: TableConfig, facts: readonly PropertyFact[]): TableConfig {
  const known = (name: string) => (builtInFields as readonly string[]).includes(name) || facts.some((f) => f.name === name);
  const hint = `Use a property of the object or one of ${builtInFields.join(', ')}`;
  const seen = new Set<string>();
  for (const [i, col] of c.columns.entries()) {
    if (!known(col.property)) p.add(`body.columns.${i}.property`, `no field "${col.property}"`, hint, 'INVALID_VALUE');
    if (seen.has(col.property)) p.add(`body.columns.${i}.property`, `column "${col.property}" appears twice`, 'Show each field once');
    seen.add(col.property);
  }
  if (c.defaultSort && !known(c.defaultSort.property)) p.add('body.defaultSort.property', `no field "${c.defaultSort.property}"`, hint, 'INVALID_VALUE');
  return c;
}

function checkPage(p: Problems, c: PageConfig, facts: readonly PropertyFact[]): PageConfig {
  const text = (f: PropertyFact) => textFormats.includes(f.format);
  if (c.titleProperty) property(p, facts, 'body.titleProperty', c.titleProperty, text, 'text');
  if (c.slugProperty) property(p, facts, 'body.slugProperty', c.slugProperty, text, 'text');
  return c;
}

function checkUser(p: Problems, c: UserConfig, facts: readonly PropertyFact[]): UserConfig {
  if (c.emailProperty) property(p, facts, 'body.emailProperty', c.emailProperty, (f) => f.format === 'email', 'email');
  return c;
}

/** Parses and checks a trait's details against the object's live properties; one 400 lists every problem. */
export function checkTraitConfig(trait: TraitName, raw: unknown, facts: readonly PropertyFact[]): TraitConfig {
  const p = problems();
  const parsed = traitConfigSchemas[trait].safeParse(raw);
  if (!parsed.success) {
    zodProblems(p, parsed.error);
    p.throwIfAny(`The ${trait} trait has several problems`);
  }
  const c = parsed.data as TraitConfig;
  const checked =
    trait === 'Flow' ? checkFlow(p, c as FlowConfig, facts) : trait === 'Table' ? checkTable(p, c as TableConfig, facts) : trait === 'Page' ? checkPage(p, c as PageConfig, facts) : checkUser(p, c as UserConfig, facts);
  p.throwIfAny(`The ${trait} trait has several problems`);
  return checked;
}
