import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { badString } from '../../aggregates/record-filter/values.js';

/**
 * Headers whose value the platform keeps (the idempotency key is stored with its response).
 * Node's HTTP parser already refuses NUL in headers and reads them as latin1 (no surrogates);
 * checked anyway so the guarantee does not rest on the parser.
 */
const storedHeaders = ['idempotency-key'] as const;

/** Printable form of a key in a field path (a NUL in a key would otherwise cut the message). */
const shown = (key: string) => key.replace(/\u0000/g, '\\u0000').replace(/[\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/**
 * The first string or key in `value` that cannot be stored, as [field path, reason]. An explicit
 * stack rather than recursion: the body parser bounds the depth, this does not rely on it.
 */
export function firstUnstorable(value: unknown, root: string): [string, string] | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const bad = badString(v);
      if (bad) return [path, bad];
    } else if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        const badKey = badString(k);
        if (badKey) return [`${path}.${shown(k)}`, `a key ${badKey}`];
        stack.push([x, `${path}.${k}`]);
      }
    }
  }
  return null;
}

function unstorableIn(request: FastifyRequest): [string, string] | null {
  const headers = Object.fromEntries(storedHeaders.filter((h) => request.headers[h] !== undefined).map((h) => [h, request.headers[h]]));
  return firstUnstorable(request.params, 'params') ?? firstUnstorable(request.query, 'querystring') ?? firstUnstorable(headers, 'headers') ?? firstUnstorable(request.body, 'body');
}

/**
 * The one string guard of the API, for every route: a NUL character or an unpaired UTF-16
 * surrogate anywhere in the path parameters, the query string, a stored header or the body is a
 * 400 INVALID_VALUE before validation, before anything is stored. PostgreSQL refuses NUL in text
 * and jsonb (a 500 deep inside a write otherwise), and would turn a lone surrogate into U+FFFD.
 * Registered on the root before any route, so no plugin can forget it.
 */
export function registerStringGuard(app: FastifyInstance) {
  app.addHook('preValidation', (request, _reply, done) => {
    const found = unstorableIn(request);
    if (!found) return done();
    const [field, why] = found;
    done(new DomainError('VALIDATION_FAILED', `${field} ${why}`, [
      { message: `${field} ${why}, which cannot be stored`, type: 'INVALID_VALUE', correctionSuggestion: `Remove the character from ${field}, or send the text as valid UTF-8 without \\u0000`, field },
    ]));
  });
}
