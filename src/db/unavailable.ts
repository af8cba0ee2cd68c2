import { DomainError } from '../../aggregates/kernel/errors.js';

/**
 * PostgreSQL cannot take a statement now, through no fault of the request: the server refuses
 * connections (too many clients, starting up, shutting down) or the connection to it failed.
 * The HTTP layer answers these 503 with Retry-After instead of 500 (docs/operations.md).
 */
const unavailableStates = new Set([
  '53300', // too_many_connections
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
]);
const unavailableSocketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
// node-postgres's own connection failures carry no code, only these messages.
const unavailableMessages = [/^Connection terminated/, /^timeout exceeded when trying to connect/];

export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // Class 08: connection exceptions.
    if (unavailableStates.has(code) || unavailableSocketCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return typeof message === 'string' && unavailableMessages.some((m) => m.test(message));
}

/** The answer to a request whose statement found the database unavailable; nothing internal in it. */
export function databaseUnavailable(retryAfterSeconds = 1): DomainError {
  return new DomainError(
    'DATABASE_UNAVAILABLE',
    'The service cannot reach its database right now',
    [
      {
        message: 'The database refused or lost the connection this request needed; nothing of the request was kept',
        type: 'PLATFORM_ERROR',
        correctionSuggestion: 'Retry after the number of seconds in the Retry-After header; a write can be retried safely with the same Idempotency-Key',
      },
    ],
    { retryAfterSeconds },
  );
}
