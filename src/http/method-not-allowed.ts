import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { sendError } from './error-handler.js';

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Unknown routes answer 404 and known paths with the wrong method 405 (with Allow), both in the
 * spec's error body. A shadow router of every registered path tells the two apart.
 */
export function registerNotFound(app: FastifyInstance) {
  const shadow = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    // Paths with a parameter in a group's place (records' /{objectName}/...) match any name: a
    // wrong method there stays a 404 instead of turning every unknown path into a 405.
    if ((route.config as { dynamicPath?: boolean } | undefined)?.dynamicPath) return;
    const list = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of list) if (m !== 'HEAD' && m !== 'OPTIONS') shadow.on(m as 'GET', route.url, () => {});
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = methods.filter((m) => shadow.find(m, path) !== null);
    // A route of this very method that sent the request here (a static file it did not find) is a 404, not a 405.
    if (allowed.length > 0 && !allowed.includes(request.method as (typeof methods)[number])) {
      reply.header('allow', allowed.join(', '));
      return sendError(request, reply, 405, `Method ${request.method} not allowed`, [
        { message: `${request.method} is not supported on ${path}`, type: 'VALIDATION', correctionSuggestion: `Use one of: ${allowed.join(', ')}` },
      ]);
    }
    return sendError(request, reply, 404, 'Route not found', [
      { message: `No route ${request.method} ${path}`, type: 'NOT_FOUND', correctionSuggestion: 'Check the path against the OpenAPI document at /api/v2/openapi.json' },
    ]);
  });
}
