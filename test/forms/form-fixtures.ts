import type { FastifyInstance } from 'fastify';
import type { TestTenant } from '../support/actors.js';
import { anObject, aProperty, aRelation, data } from '../schema/schema-fixtures.js';

/** A lead object (name, email, budget, country, score) and a contact object, related lead -> contact. */
export async function leadSchema(app: FastifyInstance, who: TestTenant) {
  const lead = await anObject(app, who);
  const contact = await anObject(app, who);
  await aProperty(app, who, lead.uuid, { name: 'name', type: 'string', format: 'text' });
  await aProperty(app, who, lead.uuid, { name: 'email', type: 'string', format: 'email' });
  await aProperty(app, who, lead.uuid, { name: 'budget', type: 'number', format: 'number' });
  await aProperty(app, who, lead.uuid, { name: 'country', type: 'string', format: 'text' });
  await aProperty(app, who, lead.uuid, { name: 'score', type: 'number', format: 'number' });
  await aProperty(app, who, contact.uuid, { name: 'fullname', type: 'string', format: 'text', required: true });
  await aProperty(app, who, contact.uuid, { name: 'phone', type: 'string', format: 'text' });
  const relation = await aRelation(app, who, lead.uuid, contact.uuid);
  return { lead, contact, relation };
}

export const scoringRules = [
  { property: 'budget', operator: 'between', min: 1000, max: null, points: 30 },
  { property: 'country', operator: 'oneOf', values: ['NL', 'DE'], points: 20 },
  { property: 'email', operator: 'contains', value: '@corp.', points: 10 },
  { property: 'name', operator: 'equals', value: 'VIP', points: 5 },
];

/** A three-step form: name and email, then budget and country, then the contacts (an inner form). */
export function threeStepForm(s: Awaited<ReturnType<typeof leadSchema>>, extra: Record<string, unknown> = {}) {
  return {
    name: 'lead-wizard',
    label: 'Lead wizard',
    objectUuid: s.lead.uuid,
    style: 'underline',
    steps: [{ title: 'You' }, { title: 'Budget' }, { title: 'Contacts' }],
    items: [
      { id: 'intro', kind: 'heading', text: 'Tell us about you', row: 0, column: 0, width: 12, step: 0 },
      { id: 'name', kind: 'property', property: 'name', row: 1, column: 0, width: 6, step: 0, required: true },
      { id: 'email', kind: 'property', property: 'email', row: 1, column: 6, width: 6, step: 0, required: true },
      { id: 'budget', kind: 'property', property: 'budget', row: 0, column: 0, width: 6, step: 1, required: true },
      { id: 'country', kind: 'property', property: 'country', row: 0, column: 6, width: 6, step: 1 },
      { id: 'contacts', kind: 'innerForm', relationUuid: s.relation.uuid, row: 0, column: 0, width: 12, step: 2, fields: [{ property: 'fullname' }, { property: 'phone' }], maxEntries: 3 },
    ],
    scoring: { property: 'score', rules: scoringRules },
    successMessage: 'Thank you!',
    published: true,
    ...extra,
  };
}

export const createForm = (app: FastifyInstance, who: TestTenant, body: Record<string, unknown>) => data(app, who, 'POST', '/api/v2/forms', body);
