import type { FastifyRequest } from 'fastify';
import { sha256 } from '../auth/sha256.js';

/** A stable key for "who is calling": the bearer credential's hash, else the client address. */
export function callerKey(request: FastifyRequest): string {
  const auth = request.headers.authorization;
  if (auth) return 'a:' + sha256(auth, 'base64url').slice(0, 32);
  return 'ip:' + request.ip;
}
