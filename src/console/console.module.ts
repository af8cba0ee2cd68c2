import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../http/error-body.js';

/**
 * Where the build put the console (scripts/build-console.mjs): dist/console, whether the server
 * runs from dist/src (npm start) or from the TypeScript sources (tsx, the tests).
 */
export function consoleDir(): string {
  const base = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return basename(base) === 'dist' ? join(base, 'console') : join(base, 'dist', 'console');
}

/** Only the console's own files: no inline script, no other origin, not framed. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The web console at /console (docs/console.md): static files of dist/console, public like any page; the API calls it makes carry the token. */
export async function registerConsole(app: FastifyInstance, dir = consoleDir()) {
  if (!existsSync(join(dir, 'index.html'))) {
    const notBuilt = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.code(503);
      return errorBody({
        message: 'The web console is not built',
        status: 503,
        requestId: request.id,
        details: [{ field: 'console', message: 'dist/console/index.html is missing', type: 'GENERAL', correctionSuggestion: 'Run npm run build (npm ci runs it too)' }],
      });
    };
    for (const url of ['/console', '/console/*']) app.get(url, { schema: { hide: true } }, notBuilt);
    return;
  }
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    index: ['index.html'],
    redirect: false,
    wildcard: false,
    decorateReply: false,
    schemaHide: true,
    cacheControl: true,
    maxAge: 0,
    setHeaders(res) {
      res.header('content-security-policy', CSP);
      res.header('x-content-type-options', 'nosniff');
      res.header('referrer-policy', 'no-referrer');
    },
  });
}
