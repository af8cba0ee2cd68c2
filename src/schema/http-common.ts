import { z } from 'zod';
import { errorBodySchema } from '../http/error-body.js';
import { paginationBody } from '../http/pagination.js';

export { optionalBody } from '../http/optional-body.js';

/** The pagination request of spec 2.1 as the body of an `.../index` route; no body lists the first page. */
export const indexBody = paginationBody;

/** Error responses of a route, for the OpenAPI document (the body is always spec part 7's). */
export const errorResponses = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, errorBodySchema]));

/** Any member of the selected company, whatever its role. */
export const memberAuth = { auth: {} } as const;
/** Reading the schema: any member. */
export const readAuth = memberAuth;
/** Changing the schema: ADMIN, or a member holding `schema:write`. */
export const writeAuth = { auth: { scopes: ['schema:write'] } } as const;

export const dataString = z.object({ message: z.string(), data: z.string() });
