import { z } from 'zod';

/**
 * Paging of every list (spec 2.1, 8): pages are numbered from 0 (page 0 is the first), `limit`
 * defaults to 25 and a limit above MAX_LIMIT is refused with a 400 that names it (never cut
 * silently: a client would believe it read everything). The page is bounded so that an offset
 * always fits a PostgreSQL integer. Here, in the kernel, so the record filter, the read models and
 * the HTTP shell compute pages the same way.
 */
export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
export const MAX_PAGE = 1_000_000;

const pageOf = (n: z.ZodNumber) => n.int().min(0, 'page counts from 0 (the first page)').max(MAX_PAGE, `page is at most ${MAX_PAGE}`).default(0);
const limitOf = (n: z.ZodNumber) => n.int().min(1, 'limit is at least 1').max(MAX_LIMIT, `limit is at most ${MAX_LIMIT}`).default(DEFAULT_LIMIT);

/** `page` of a JSON body: from 0, default 0. */
export const pageField = pageOf(z.number());
/** `limit` of a JSON body: 1 to MAX_LIMIT, default DEFAULT_LIMIT. */
export const limitField = limitOf(z.number());
/** The same two as query-string parameters (text coerced to numbers). */
export const pageQueryField = pageOf(z.coerce.number());
export const limitQueryField = limitOf(z.coerce.number());

/** Rows to skip before page `page` (from 0) of `limit` rows. */
export const pageOffset = (page: number, limit: number) => page * limit;

/** The number of the last page (from 0): 0 when there is nothing, as there is still a page 0. */
export const lastPageOf = (total: number, perPage: number) => Math.max(0, Math.ceil(total / perPage) - 1);
