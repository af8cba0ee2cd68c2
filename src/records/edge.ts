import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { badString } from '../../aggregates/record-filter/values.js';

/** The first string (or key) in `value` PostgreSQL could not store, as a path, with the reason. */
function firstBad(value: unknown, path: string, depth = 0): [string, string] | null {
  if (typeof value === 'string') {
    const bad = badString(value);
    return bad ? [path, bad] : null;
  }
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const key = String(k);
    const badKey = badString(key);
    if (badKey) return [`${path}.${key.replace(/\u0000/g, '\\u0000')}`, `a key ${badKey}`];
    const found = firstBad(v, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Refuses NUL (and unpaired surrogates) anywhere in the body, query string or path with a 400,
 * before validation: PostgreSQL rejects NUL in text and jsonb, and a filter value would otherwise
 * reach SQL and fail there.
 */
export function refuseUnstorableStrings(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    const found = firstBad(request.body, 'body') ?? firstBad(request.query, 'querystring') ?? firstBad(request.params, 'params');
    if (!found) return;
    const [field, why] = found;
    throw new DomainError('VALIDATION_FAILED', `${field} ${why}`, [
      { message: `${field} ${why}, which cannot be stored`, type: 'INVALID_VALUE', correctionSuggestion: `Remove the character from ${field}`, field },
    ]);
  });
}
