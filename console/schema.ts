import { api } from './session.js';

/** What the console needs of a property. */
export interface Property {
  name: string;
  label: string;
  type: string;
}

/** An object by its name, with its live properties (the records pages need both). */
export async function objectByName(name: string) {
  const found = await api.listPost('/api/v2/objects/index', { body: { filters: [{ key: 'name', operator: 'equals', value: name }], limit: 1 } });
  const object = found.items[0];
  if (!object) throw new Error(`No object named "${name}" in this company`);
  const properties = await api.listPost('/api/v2/objects/{objectUuid}/properties/index', { params: { path: { objectUuid: object.uuid } }, body: { limit: 100 } });
  return { object, properties: properties.items };
}

/** A form field's text as the property's value (numbers and booleans typed; empty is null). */
export function parseValue(p: Property | undefined, text: string): unknown {
  if (text === '') return null;
  if (p?.type === 'number') return Number(text);
  if (p?.type === 'boolean') return text === 'true';
  if (p?.type === 'json') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
