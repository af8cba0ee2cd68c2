import { z } from 'zod';
import { propertyTypeSchema } from '../../aggregates/property/property.schemas.js';
import { cardinalitySchema, directionSchema, relationInputSchema, reversed } from '../../aggregates/relation/relation.schemas.js';
import { optionalBody } from './http-common.js';
import type { RecordLinkRow } from '../../read-models/record-links.queries.js';
import { toRelationDefinition, type RelationRow } from '../../read-models/relations.queries.js';
import type { RelationFromObject } from './relations.service.js';
import { auditFields, deletableAuditOf, type Actors } from '../http/audit-fields.js';

export const relationSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    label: z.string(),
    description: z.string(),
    fromObjectUuid: z.string().describe('The origin object'),
    toObjectUuid: z.string().describe('The target object'),
    cardinality: cardinalitySchema.describe('From the origin to the target'),
    direction: directionSchema,
    fromName: z.string().describe('The name of the relation at the origin end'),
    toName: z.string().nullable().describe('The name at the target end'),
    edgeProperties: z.array(z.object({ name: z.string(), label: z.string(), type: propertyTypeSchema, required: z.boolean() })),
    deleted: z.boolean(),
    ...auditFields,
  })
  .meta({ id: 'Relation' });

const objectSummary = z.object({ uuid: z.string(), name: z.string(), label: z.string(), plural: z.string(), deleted: z.boolean() });

export const relationFromObjectSchema = relationSchema
  .extend({
    side: z.enum(['origin', 'target']).describe("The object's end of the relation (a self-relation answers as origin)"),
    endName: z.string().nullable().describe("The relation's name at this object's end"),
    cardinalityFromHere: cardinalitySchema.describe('The cardinality read from this end'),
    navigable: z.boolean().describe("Whether this object's records can walk the relation (always at the origin; at the target when BIDIRECTIONAL)"),
    object: objectSummary,
    otherObject: objectSummary,
  })
  .meta({ id: 'RelationFromObject' });

export const relationBodySchema = relationInputSchema;

export const updateIndicesBodySchema = z
  .record(z.uuid(), z.number().int().min(0).max(1_000_000))
  .refine((m) => Object.keys(m).length > 0 && Object.keys(m).length <= 500, 'send 1 to 500 relation uuids')
  .meta({ id: 'RelationIndices', description: 'Relation uuid -> new index' });

export const connectBodySchema = optionalBody(
  z
    .object({ edgeProperties: z.record(z.string(), z.unknown()).optional().describe("Values of the relation's edge properties; replaces those of an existing connection") })
    .meta({ id: 'ConnectRecords' }),
  () => ({}),
);

export const connectionSchema = z
  .object({
    relationUuid: z.string(),
    fromRecordUuid: z.string(),
    toRecordUuid: z.string(),
    edgeProperties: z.record(z.string(), z.unknown()),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    revision: z.number().int(),
  })
  .meta({ id: 'RecordConnection' });

/** The relation as answered: its row's definition (`toRelationDefinition`, the one mapping of the row) and its audit fields. */
export const toRelation = (row: RelationRow, actors: Actors): z.infer<typeof relationSchema> => ({
  uuid: row.relation_uuid,
  ...toRelationDefinition(row),
  ...deletableAuditOf(row, actors),
});

export const toRelationFromObject = ({ relation, object, other, side }: RelationFromObject, actors: Actors): z.infer<typeof relationFromObjectSchema> => {
  const summary = (o: typeof object) => ({ uuid: o.object_uuid, name: o.name, label: o.label, plural: o.plural, deleted: o.deleted_at !== null });
  return {
    ...toRelation(relation, actors),
    side,
    endName: side === 'origin' ? relation.from_name : relation.to_name,
    cardinalityFromHere: side === 'origin' ? relation.cardinality : reversed(relation.cardinality),
    navigable: side === 'origin' || relation.direction === 'BIDIRECTIONAL',
    object: summary(object),
    otherObject: summary(other),
  };
};

export const toConnection = (row: RecordLinkRow): z.infer<typeof connectionSchema> => ({
  relationUuid: row.relation_uuid,
  fromRecordUuid: row.from_record,
  toRecordUuid: row.to_record,
  edgeProperties: row.edge_properties,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  revision: row.revision,
});
