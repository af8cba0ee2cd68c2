import type { z } from 'zod';

/**
 * A body that may be left out. Fastify hands a validator `null` for a request without a body, so
 * `.default()` alone never applies; this maps null and undefined to `fallback`.
 */
export const optionalBody = <T extends z.ZodType>(schema: T, fallback: () => z.output<T>) =>
  schema.nullable().optional().transform((v): z.output<T> => v ?? fallback());
