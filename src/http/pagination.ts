import { z } from 'zod';
import { limitField, pageField } from '../../aggregates/kernel/paging.js';
import { optionalBody } from './optional-body.js';

export { DEFAULT_LIMIT, MAX_LIMIT, pageOffset } from '../../aggregates/kernel/paging.js';

/**
 * The pagination request of spec 2.1, the body of every `.../index`. Pages count from 0 (page 0 is
 * the first, as spec 8's default page of 0 implies); a limit above MAX_LIMIT is a 400 naming it.
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
    limit: limitField,
    page: pageField,
    query: z.string().max(500).optional(),
  })
  .meta({ id: 'PaginationRequest' });
export type PaginationRequest = z.infer<typeof paginationRequestSchema>;

/** The body of an index route: optional, so `POST .../index` with no body lists the first page. */
export const paginationBody = optionalBody(paginationRequestSchema, () => paginationRequestSchema.parse({}));
