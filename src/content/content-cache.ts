import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagMatches } from '../http/etag.js';

/** How long a shared cache may keep a public answer, seconds (a page ending sooner keeps it less). */
export const CONTENT_MAX_AGE = 60;

/**
 * Sends a content API answer with its ETag (of the exact bytes) and Cache-Control; a matching
 * If-None-Match is a 304 with no body. `cache`: `public` with a max-age, or `private` (a protected
 * page read with its password or a member's token: no shared cache may keep it).
 */
export function sendCached(request: FastifyRequest, reply: FastifyReply, body: unknown, cache: { maxAge: number } | 'private') {
  const text = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;
  reply.header('etag', etag);
  reply.header('cache-control', cache === 'private' ? 'private, no-store' : `public, max-age=${Math.max(0, Math.floor(cache.maxAge))}`);
  reply.header('vary', 'Host, Authorization, X-Page-Password');
  if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
  return reply.code(200).type('application/json; charset=utf-8').send(text);
}
