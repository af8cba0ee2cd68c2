import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** A stable key for "who is calling": the bearer credential's hash, else the client address. */
export function callerKey(request: FastifyRequest): string {
  const auth = request.headers.authorization;
  if (auth) return 'a:' + createHash('sha256').update(auth).digest('base64url').slice(0, 32);
  return 'ip:' + request.ip;
}
