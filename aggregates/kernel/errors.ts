/** The error types of the spec's error body (part 7). */
export const errorTypes = [
  'VALIDATION',
  'NOT_FOUND',
  'TEST',
  'RELATION_NOT_ALLOWED',
  'INVALID_VALUE',
  'GENERAL',
  'INVALID_FILE_TYPE',
  'INTERNAL_SERVER_ERROR',
  'PLATFORM_ERROR',
  'INVALID_EMAIL',
  'INVALID_DATE',
] as const;
export type ErrorType = (typeof errorTypes)[number];

/** Stable domain error codes. The HTTP layer maps each to a status in one place. */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'WRONG_EXPECTED_REVISION'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'PRECONDITION_FAILED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'RATE_LIMITED'
  | 'STATE_NOT_ALLOWED'
  | 'STATEMENT_TIMEOUT'
  | 'NOT_READY'
  | 'DATABASE_UNAVAILABLE';

export interface ErrorDetail {
  message: string;
  type: ErrorType;
  correctionSuggestion: string;
  /** The request field the detail is about, when there is one. */
  field?: string;
}

/** A failure the caller can act on. Carries a code, never an HTTP status. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string, id: string) =>
  new DomainError('NOT_FOUND', `${what} ${id} not found`, [
    {
      message: `${what} ${id} does not exist in the selected company`,
      type: 'NOT_FOUND',
      correctionSuggestion: `Check the ${what.toLowerCase()} uuid, and that the right company is selected`,
    },
  ]);

export const invalid = (field: string, message: string, correctionSuggestion: string, type: ErrorType = 'VALIDATION') =>
  new DomainError('VALIDATION_FAILED', message, [{ message, type, correctionSuggestion, field }]);
