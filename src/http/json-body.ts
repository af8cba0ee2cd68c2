import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';

/**
 * How deep a JSON body may nest. The deepest shape the API takes is a filter inside a webhook's
 * relation filters or a json property value, a handful of levels; zod, the string guard and the
 * filter compiler all recurse, and a body of 5,000 `[` (10 kB) used to overflow the stack (500).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` opens more than `max` arrays and objects inside one another. One pass over the
 * characters, skipping strings, before JSON.parse sees the text: cheaper than parsing, and nothing
 * recursive ever holds a deeper value.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const tooDeep = () =>
  new DomainError('VALIDATION_FAILED', 'JSON body nested too deeply', [
    {
      message: `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      type: 'VALIDATION',
      correctionSuggestion: `Send a body at most ${MAX_JSON_DEPTH} levels deep`,
      field: 'body',
    },
  ]);

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

// secure-json-parse refuses a `__proto__` key and Fastify calls that "not valid JSON": a text that
// JSON.parse takes was refused for that key, and the answer says so.
const protoKey = () =>
  new DomainError('VALIDATION_FAILED', 'Refused key __proto__ in the JSON body', [
    {
      message: 'The request body has a "__proto__" key, which the server refuses (prototype pollution)',
      type: 'VALIDATION',
      correctionSuggestion: 'Rename or remove the "__proto__" key',
      field: 'body',
    },
  ]);

/**
 * The JSON body parser of every route: Fastify's own (secure-json-parse, `__proto__` refused,
 * its errors mapped in error-handler.ts), behind the depth check. Fastify's `text/plain` parser is
 * removed: no route takes text, and a JSON text sent as text/plain (fetch's default for a string
 * body) became a string the schema refused with a 400 that did not say why; now it is the 415 of
 * any other media type, whose correctionSuggestion names application/json.
 */
export function registerJsonBody(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(tooDeep(), undefined);
    return parse(request, text, (err, value) => done(err && isJson(text) ? protoKey() : err, value));
  });
}
