import { z } from 'zod';
import { propertyTypeSchema } from '../property/property.schemas.js';

export const relationCardinalities = ['ONE_TO_ONE', 'ONE_TO_MANY', 'MANY_TO_ONE', 'MANY_TO_MANY'] as const;
export const cardinalitySchema = z.enum(relationCardinalities);
export type Cardinality = z.infer<typeof cardinalitySchema>;

export const relationDirections = ['DIRECTED', 'BIDIRECTIONAL'] as const;
export const directionSchema = z.enum(relationDirections);
export type Direction = z.infer<typeof directionSchema>;

/** A property a connection between two records may carry (spec 2.5 edgeProperties). */
export const edgePropertyDefinitionSchema = z
  .object({
    name: z.string().max(200),
    label: z.string().max(200).optional(),
    type: propertyTypeSchema,
    required: z.boolean().optional(),
  })
  .meta({ id: 'EdgePropertyDefinition' });
export type EdgePropertyInput = z.infer<typeof edgePropertyDefinitionSchema>;
export interface EdgePropertyDefinition {
  name: string;
  label: string;
  type: z.infer<typeof propertyTypeSchema>;
  required: boolean;
}

/** The body of `POST /relations/{objectUuid}` (create, or update by name). */
export const relationInputSchema = z
  .object({
    name: z.string().max(200).describe('Identifier, unique among the relations starting at the object'),
    label: z.string().max(200).optional(),
    description: z.string().max(2000).optional(),
    toObjectUuid: z.string().uuid().describe('The target object; immutable'),
    cardinality: cardinalitySchema.describe('From the origin to the target; immutable'),
    direction: directionSchema.optional().describe('DIRECTED (default): navigable from the origin; BIDIRECTIONAL: from both ends'),
    fromName: z.string().max(200).optional().describe('The name of the relation at the origin end (default: name)'),
    toName: z.string().max(200).nullable().optional().describe('The name at the target end; required when BIDIRECTIONAL'),
    edgeProperties: z.array(edgePropertyDefinitionSchema).max(50).optional().describe('Properties a connection may carry; may be added to, never removed or retyped'),
    index: z.number().int().min(0).max(1_000_000).optional(),
  })
  .meta({ id: 'RelationBody' });
export type RelationInput = z.infer<typeof relationInputSchema>;

export interface RelationDefinition {
  name: string;
  label: string;
  description: string;
  fromObjectUuid: string;
  toObjectUuid: string;
  cardinality: Cardinality;
  direction: Direction;
  fromName: string;
  toName: string | null;
  edgeProperties: EdgePropertyDefinition[];
  index: number;
}

/** Whether a record of the origin may be connected to at most one target record, and the other way round. */
export function cardinalityLimits(cardinality: Cardinality): { onePerFrom: boolean; onePerTo: boolean } {
  return { onePerFrom: cardinality === 'ONE_TO_ONE' || cardinality === 'MANY_TO_ONE', onePerTo: cardinality === 'ONE_TO_ONE' || cardinality === 'ONE_TO_MANY' };
}

/** The cardinality as seen from the target end. */
export const reversed = (cardinality: Cardinality): Cardinality =>
  cardinality === 'ONE_TO_MANY' ? 'MANY_TO_ONE' : cardinality === 'MANY_TO_ONE' ? 'ONE_TO_MANY' : cardinality;
