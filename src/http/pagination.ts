import { z } from 'zod';
import { optionalBody } from './optional-body.js';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/**
 * The pagination request of spec 2.1, the body of every `.../index`. Pages count from 1; page 0
 * (the spec's default for traits) means the first page. A limit above MAX_LIMIT is clamped.
 */
export const paginationRequestSchema = z
  .object({
    filters: z
      .array(z.object({ key: z.string().min(1).max(200), operator: z.string().min(1).max(40), value: z.unknown().optional() }))
      .max(50)
      .default([]),
    sort: z
      .array(z.object({ key: z.string().min(1).max(200), direction: z.enum(['asc', 'desc', 'ASC', 'DESC']).default('asc') }))
      .max(10)
      .default([]),
    show: z.array(z.string().min(1).max(200)).max(200).optional(),
    limit: z.number().int().min(1).default(DEFAULT_LIMIT).transform((n) => Math.min(n, MAX_LIMIT)),
    page: z.number().int().min(0).default(1).transform((n) => Math.max(n, 1)),
    query: z.string().max(500).optional(),
  })
  .meta({ id: 'PaginationRequest' });
export type PaginationRequest = z.infer<typeof paginationRequestSchema>;

/** The body of an index route: optional, so `POST .../index` with no body lists the first page. */
export const paginationBody = optionalBody(paginationRequestSchema, () => paginationRequestSchema.parse({}));
