import type { RouteOptions } from 'fastify';
import type { RouteAuth } from '../auth/authorize.js';
import { errorBodySchema } from './error-body.js';

type RouteSchema = { params?: unknown; querystring?: unknown; body?: unknown; response?: Record<string, unknown> };

/**
 * The error statuses every operation of a kind can answer, read from what the route declares (its
 * auth, its inputs), each with the spec's error body (issue 34). One place for every operation;
 * a route's own error responses (`errorResponses(...)`) stay as they are. Only what the shell
 * answers the same for any route of the kind: a route's own 404 without a path parameter, 409
 * or 412 are the route's to declare. 429 is left out: it depends on RATE_LIMIT_ENABLED, and the
 * document is the same whatever the configuration.
 */
export function errorStatusesOf(route: Pick<RouteOptions, 'config'>, schema: RouteSchema): number[] {
  const auth = (route.config as { auth?: RouteAuth; upload?: unknown } | undefined)?.auth;
  const upload = (route.config as { upload?: unknown } | undefined)?.upload;
  const statuses = new Set<number>();
  if (schema.params || schema.querystring || schema.body || upload) statuses.add(400);
  if (auth !== undefined && auth !== 'public') statuses.add(401);
  if (auth !== undefined && typeof auth === 'object') statuses.add(403);
  if (schema.params) statuses.add(404);
  if (schema.body || upload) statuses.add(413).add(415);
  statuses.add(500).add(503);
  return [...statuses];
}

/** The route's response schemas with the error body for each of `errorStatusesOf`, the route's own first. */
export function withErrorResponses(route: Pick<RouteOptions, 'config'>, schema: RouteSchema): Record<string, unknown> | undefined {
  if (!schema.response) return undefined;
  return { ...Object.fromEntries(errorStatusesOf(route, schema).map((s) => [s, errorBodySchema])), ...schema.response };
}
