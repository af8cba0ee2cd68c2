import { z } from 'zod';
import { propertyDefinitionSchema, propertyInputSchema } from '../../aggregates/property/property.schemas.js';
import { toDefinition, type PropertyRow } from '../../read-models/properties.queries.js';
import { auditFieldsWithout, deletableAuditOf, type Actors } from '../http/audit-fields.js';

export const propertySchema = propertyDefinitionSchema
  .extend({
    uuid: z.string(),
    objectUuid: z.string(),
    deleted: z.boolean(),
    ...auditFieldsWithout('index'),
  })
  .meta({ id: 'Property' });

export const createPropertyBodySchema = propertyInputSchema;

/** Every field optional: a client may PUT back what it read; immutable fields must keep their values. */
export const updatePropertyBodySchema = propertyInputSchema.partial().meta({ id: 'PropertyUpdate' });

export const toProperty = (row: PropertyRow, actors: Actors): z.infer<typeof propertySchema> => ({
  uuid: row.property_uuid,
  objectUuid: row.object_uuid,
  ...toDefinition(row),
  ...deletableAuditOf(row, actors),
});
