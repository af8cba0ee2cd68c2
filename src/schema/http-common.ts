import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DomainError } from '../../aggregates/kernel/errors.js';
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

function nulPath(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = nulPath(v, `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return `${path}.${k.replace(/\u0000/g, '\\u0000')}`;
      const found = nulPath(v, `${path}.${k}`);
      if (found) return found;
    }
  }
  return null;
}

/** PostgreSQL refuses NUL in text and jsonb: refuse it at the edge, with a 400, before anything is stored. */
export function rejectNulCharacters(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    const field = nulPath(request.body, 'body');
    if (field) {
      throw new DomainError('VALIDATION_FAILED', `${field} contains a NUL character`, [
        { message: `${field} contains the character \\u0000, which cannot be stored`, type: 'INVALID_VALUE', correctionSuggestion: `Remove \\u0000 from ${field}`, field },
      ]);
    }
  });
}
