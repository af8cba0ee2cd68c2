import { z } from 'zod';
import { propertyTypeSchema } from '../property/property.schemas.js';
import { cardinalitySchema, directionSchema } from './relation.schemas.js';

const uuid = z.string().uuid();
const edgeProperty = z.object({ name: z.string(), label: z.string(), type: propertyTypeSchema, required: z.boolean() });

export const relationCreated = z.object({
  type: z.literal('RelationCreated'),
  version: z.literal(1),
  data: z.object({
    relationUuid: uuid,
    name: z.string(),
    label: z.string(),
    description: z.string(),
    fromObjectUuid: uuid,
    toObjectUuid: uuid,
    cardinality: cardinalitySchema,
    direction: directionSchema,
    fromName: z.string(),
    toName: z.string().nullable(),
    edgeProperties: z.array(edgeProperty),
    index: z.number().int(),
  }),
});
export const relationUpdated = z.object({
  type: z.literal('RelationUpdated'),
  version: z.literal(1),
  data: z.object({
    label: z.string().optional(),
    description: z.string().optional(),
    direction: directionSchema.optional(),
    fromName: z.string().optional(),
    toName: z.string().nullable().optional(),
    edgeProperties: z.array(edgeProperty).optional(),
  }),
});
export const relationIndexChanged = z.object({ type: z.literal('RelationIndexChanged'), version: z.literal(1), data: z.object({ index: z.number().int() }) });
export const relationDeleted = z.object({ type: z.literal('RelationDeleted'), version: z.literal(1), data: z.object({ relationUuid: uuid }) });
export const relationRestored = z.object({ type: z.literal('RelationRestored'), version: z.literal(1), data: z.object({ relationUuid: uuid }) });
/** The hard delete: the relation and its connections leave the read models for good. */
export const relationPurged = z.object({ type: z.literal('RelationPurged'), version: z.literal(1), data: z.object({ relationUuid: uuid }) });

export const relationEventSchema = z.discriminatedUnion('type', [relationCreated, relationUpdated, relationIndexChanged, relationDeleted, relationRestored, relationPurged]);
export type RelationEvent = z.infer<typeof relationEventSchema>;
export const relationEventTypes = relationEventSchema.options.map((o) => o.shape.type.value);

export const RELATION_STREAM_PREFIX = 'relation-';
export const relationStream = (relationUuid: string) => `${RELATION_STREAM_PREFIX}${relationUuid}`;
/** The uuid a relation stream is named by (the inverse of `relationStream`). */
export const relationUuidOfStream = (streamId: string) => streamId.slice(RELATION_STREAM_PREFIX.length);
