import { z } from 'zod';
import { propertyDefinitionSchema, propertyOptionSchema } from './property.schemas.js';

const uuid = z.string().uuid();

export const propertyCreated = z.object({
  type: z.literal('PropertyCreated'),
  version: z.literal(1),
  data: z.object({ propertyUuid: uuid, objectUuid: uuid, definition: propertyDefinitionSchema }),
});
/** Display changes only: label, description, icon, group, and the option list (labels, additions, order). */
export const propertyUpdated = z.object({
  type: z.literal('PropertyUpdated'),
  version: z.literal(1),
  data: z.object({
    label: z.string().optional(),
    description: z.string().optional(),
    icon: z.string().optional(),
    group: z.string().nullable().optional(),
    options: z.array(propertyOptionSchema).optional(),
  }),
});
export const propertyDeleted = z.object({ type: z.literal('PropertyDeleted'), version: z.literal(1), data: z.object({ propertyUuid: uuid }) });
export const propertyRestored = z.object({ type: z.literal('PropertyRestored'), version: z.literal(1), data: z.object({ propertyUuid: uuid }) });

export const propertyEventSchema = z.discriminatedUnion('type', [propertyCreated, propertyUpdated, propertyDeleted, propertyRestored]);
export type PropertyEvent = z.infer<typeof propertyEventSchema>;
export const propertyEventTypes = propertyEventSchema.options.map((o) => o.shape.type.value);

export const PROPERTY_STREAM_PREFIX = 'property-';
export const propertyStream = (propertyUuid: string) => `${PROPERTY_STREAM_PREFIX}${propertyUuid}`;
/** The uuid a property stream is named by (the inverse of `propertyStream`). */
export const propertyUuidOfStream = (streamId: string) => streamId.slice(PROPERTY_STREAM_PREFIX.length);
