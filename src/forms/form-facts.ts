import type { FormFacts, FormInput, FormObjectFacts } from '../../aggregates/form/form.decider.js';
import type { AnswerFacts } from '../../aggregates/form/form.answers.js';
import type { FormSettings } from '../../aggregates/form/form.events.js';
import { loadObjectSchemaByUuid, type ObjectSchema } from '../../read-models/schema.queries.js';
import type { Sql } from '../../ports/sql.js';

const objectFacts = (schema: ObjectSchema): FormObjectFacts => ({
  uuid: schema.object.uuid,
  name: schema.object.name,
  properties: Object.fromEntries(schema.properties.map((p) => [p.name, { type: p.type, required: p.required ?? false }])),
});

/** The facts a form definition is checked against: its object, and each inner form's relation and object. */
export async function formFactsFor(sql: Sql, tenant: string, input: FormInput, base: FormSettings | null): Promise<FormFacts> {
  const objectUuid = input.objectUuid ?? base?.objectUuid;
  const schema = objectUuid ? await loadObjectSchemaByUuid(sql, tenant, objectUuid) : null;
  if (!schema) return { object: null, relations: {} };
  const wanted = new Set((input.items ?? base?.items ?? []).flatMap((i) => (i.kind === 'innerForm' ? [i.relationUuid] : [])));
  const relations: Record<string, FormFacts['relations'][string]> = {};
  for (const relationUuid of wanted) {
    const end = schema.relations.find((r) => r.relationUuid === relationUuid && r.side === 'origin') ?? schema.relations.find((r) => r.relationUuid === relationUuid);
    if (!end) continue;
    const other = await loadObjectSchemaByUuid(sql, tenant, end.otherObjectUuid);
    if (other) relations[relationUuid] = { side: end.side, other: objectFacts(other) };
  }
  return { object: objectFacts(schema), relations };
}

/** The property definitions a submission is checked against: of the form's object and of each inner form's object. */
export async function answerFactsFor(sql: Sql, tenant: string, settings: FormSettings): Promise<(AnswerFacts & { schema: ObjectSchema }) | null> {
  const schema = await loadObjectSchemaByUuid(sql, tenant, settings.objectUuid);
  if (!schema) return null;
  const innerDefinitions: AnswerFacts['innerDefinitions'] = {};
  for (const item of settings.items) {
    if (item.kind !== 'innerForm') continue;
    const other = await loadObjectSchemaByUuid(sql, tenant, item.objectUuid);
    (innerDefinitions as Record<string, unknown>)[item.id] = other?.properties ?? [];
  }
  return { schema, definitions: schema.properties, innerDefinitions };
}
