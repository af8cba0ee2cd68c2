import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { callerKey } from './caller-key.js';

export interface RateLimitOptions {
  enabled: boolean;
  max: number;
  windowMs: number;
}

/** Per-caller request limits: past the limit a 429 with the error body and Retry-After. */
export async function registerRateLimit(app: FastifyInstance, { enabled, max, windowMs }: RateLimitOptions) {
  if (!enabled) return;
  await app.register(rateLimit, {
    global: true,
    max,
    timeWindow: windowMs,
    keyGenerator: callerKey,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new DomainError('RATE_LIMITED', 'Too many requests', [
        {
          message: `More than ${context.max} requests in the current window`,
          type: 'GENERAL',
          correctionSuggestion: `Wait ${seconds} s (see Retry-After) and send fewer requests per window`,
        },
      ], { retryAfterSeconds: seconds });
    },
  });
}
