import { z } from 'zod';
import { errorTypes, type ErrorCode, type ErrorDetail } from '../../aggregates/kernel/errors.js';

export const roleNames = ['USER', 'ADMIN', 'RESELLER', 'DEVELOPER', 'SUPER_ADMIN'] as const;

/** The spec's error body (part 7). */
export const errorBodySchema = z
  .object({
    message: z.string(),
    errors: z.array(z.object({ message: z.string(), type: z.enum(errorTypes), correctionSuggestion: z.string() })),
    status: z.number().int(),
    stackTrace: z.string().optional(),
    roles: z.array(z.enum(roleNames)),
    scopes: z.array(z.string()),
    requestId: z.string(),
  })
  .meta({ id: 'ErrorBody' });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** One place maps domain error codes to HTTP statuses. */
export const statusOf: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  WRONG_EXPECTED_REVISION: 409,
  STATE_NOT_ALLOWED: 409,
  PRECONDITION_FAILED: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  // A statement ran past STATEMENT_TIMEOUT_MS and was cancelled: the server is up, this request
  // is too heavy for it now (docs/operations.md).
  STATEMENT_TIMEOUT: 503,
  // The health route: the database or the reactors are down, or the server is shutting down.
  NOT_READY: 503,
  // PostgreSQL refused or lost the connection (too many clients, restarting): src/db/unavailable.ts.
  DATABASE_UNAVAILABLE: 503,
};

export function errorBody(args: {
  message: string;
  status: number;
  requestId: string;
  details: ErrorDetail[];
  roles?: string[];
  scopes?: string[];
  stackTrace?: string;
}): ErrorBody {
  return {
    message: args.message,
    errors: args.details.map(({ message, type, correctionSuggestion }) => ({ message, type, correctionSuggestion })),
    status: args.status,
    ...(args.stackTrace ? { stackTrace: args.stackTrace } : {}),
    roles: (args.roles ?? []) as ErrorBody['roles'],
    scopes: args.scopes ?? [],
    requestId: args.requestId,
  };
}
