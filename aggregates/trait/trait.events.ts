import { z } from 'zod';
import { traitNameSchema } from './trait.schemas.js';

const uuid = z.string().uuid();

export const traitConfigured = z.object({
  type: z.literal('TraitConfigured'),
  version: z.literal(1),
  data: z.object({ objectUuid: uuid, trait: traitNameSchema, config: z.record(z.string(), z.unknown()) }),
});
export const traitRemoved = z.object({ type: z.literal('TraitRemoved'), version: z.literal(1), data: z.object({ objectUuid: uuid, trait: traitNameSchema }) });

export const traitEventSchema = z.discriminatedUnion('type', [traitConfigured, traitRemoved]);
export type TraitEvent = z.infer<typeof traitEventSchema>;
export const traitEventTypes = traitEventSchema.options.map((o) => o.shape.type.value);

/** One stream per (object, trait). */
export const TRAIT_STREAM_PREFIX = 'trait-';
export const traitStream = (objectUuid: string, trait: string) => `${TRAIT_STREAM_PREFIX}${objectUuid}-${trait.toLowerCase()}`;
