import type { FastifyInstance, RouteOptions } from 'fastify';
import FindMyWay from 'find-my-way';
import { sendError } from './error-handler.js';

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

// Two urls that route alike (`/webhooks/:uuid`, `/webhooks/:webhookUuid`) are one path.
const shapeOf = (url: string) => url.replace(/:\w+/g, ':p').replace(/(.)\/+$/, '$1');

/**
 * Every routed path and the methods it takes: what a 405's `Allow` lists, for the request's own
 * path only. One shadow router holds each path once (the router's precedence picks the path a
 * request names: `/webhooks/formats` rather than `/webhooks/:uuid`), a map its methods. Made
 * before the app, so Node's parser errors (an unknown method) can use it too.
 */
export function makeRouteMethods() {
  const paths = FindMyWay({ ignoreTrailingSlash: true });
  const methodsOf = new Map<string, Set<string>>();
  // The object-named routes' paths with any name and any segment in their parameters' places.
  const dynamic = FindMyWay({ ignoreTrailingSlash: true });
  const dynamicShapes = new Set<string>();
  return {
    add(route: RouteOptions) {
      // Paths with a parameter in a group's place (records' /{objectName}/...) match any name: a
      // wrong method there stays a 404 instead of turning every unknown path into a 405.
      if ((route.config as { dynamicPath?: boolean } | undefined)?.dynamicPath) {
        const shape = shapeOf(route.url.split('/').map((seg) => (seg.startsWith(':') ? ':p' : seg)).join('/'));
        if (!dynamicShapes.has(shape)) {
          dynamicShapes.add(shape);
          dynamic.on('GET', shape, () => {});
        }
        return;
      }
      const shape = shapeOf(route.url);
      let own = methodsOf.get(shape);
      if (!own) {
        own = new Set();
        methodsOf.set(shape, own);
        paths.on('GET', route.url, () => {}, { shape });
      }
      for (const m of Array.isArray(route.method) ? route.method : [route.method]) own.add(m);
    },
    /** The methods of the path `path` names (no query string), in a fixed order; none for an unknown path. */
    allowed(path: string): string[] {
      const hit = paths.find('GET', path);
      const own = hit && methodsOf.get((hit.store as { shape: string }).shape);
      return own ? methods.filter((m) => own.has(m)) : [];
    },
    /**
     * Whether `path` is routed nowhere and has the shape of an object-named route
     * (`/api/v2/{objectName}/...`) with whatever name, uuid or method: such a request needs a
     * token like those routes, so an anonymous caller gets 401 rather than 404.
     */
    inObjectSpace(path: string): boolean {
      return dynamic.find('GET', path) !== null && this.allowed(path).length === 0;
    },
  };
}
export type RouteMethods = ReturnType<typeof makeRouteMethods>;

/**
 * Unknown routes answer 404 and known paths with the wrong method 405 (with Allow), both in the
 * spec's error body.
 */
export function registerNotFound(app: FastifyInstance, routes: RouteMethods) {
  app.addHook('onRoute', (route) => routes.add(route));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.allowed(path);
    // A route of this very method that sent the request here (a static file it did not find) is a 404, not a 405.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
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
