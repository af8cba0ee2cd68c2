import { z } from 'zod';

const uuid = z.string().uuid();

export const objectCreated = z.object({
  type: z.literal('ObjectCreated'),
  version: z.literal(1),
  data: z.object({
    objectUuid: uuid,
    name: z.string(),
    label: z.string(),
    plural: z.string(),
    description: z.string(),
    icon: z.string(),
    group: z.string().nullable(),
  }),
});
export const objectUpdated = z.object({
  type: z.literal('ObjectUpdated'),
  version: z.literal(1),
  data: z.object({
    label: z.string().optional(),
    plural: z.string().optional(),
    description: z.string().optional(),
    icon: z.string().optional(),
    group: z.string().nullable().optional(),
  }),
});
export const objectDeleted = z.object({ type: z.literal('ObjectDeleted'), version: z.literal(1), data: z.object({ objectUuid: uuid }) });
export const objectRestored = z.object({ type: z.literal('ObjectRestored'), version: z.literal(1), data: z.object({ objectUuid: uuid }) });

export const objectEventSchema = z.discriminatedUnion('type', [objectCreated, objectUpdated, objectDeleted, objectRestored]);
export type ObjectEvent = z.infer<typeof objectEventSchema>;
export const objectEventTypes = objectEventSchema.options.map((o) => o.shape.type.value);

export const OBJECT_STREAM_PREFIX = 'object-';
export const objectStream = (objectUuid: string) => `${OBJECT_STREAM_PREFIX}${objectUuid}`;
/** The uuid a object stream is named by (the inverse of `objectStream`). */
export const objectUuidOfStream = (streamId: string) => streamId.slice(OBJECT_STREAM_PREFIX.length);
