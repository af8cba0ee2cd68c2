import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import type { RecordObject } from '../../read-models/records.queries.js';

/** The definitions a record is checked against: its object's, then those its extended objects add. */
export function definitionsOf(objects: readonly RecordObject[]): PropertyDefinition[] {
  const seen = new Map<string, PropertyDefinition>();
  for (const o of objects) for (const p of o.properties) if (!seen.has(p.name)) seen.set(p.name, p);
  return [...seen.values()];
}
