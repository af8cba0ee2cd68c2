import type { components } from './api.generated.js';

/** The spec's error body (part 7), as the server's document declares it. */
export type ErrorBody = components['schemas']['ErrorBody'];

/**
 * Every answer at or above 400 is thrown as an ApiError carrying the spec's error body: `status`,
 * `message`, `errors` (each with its correctionSuggestion), `roles` and `scopes` missing on a 403,
 * and the `requestId` to give support. An answer that is not the error body (a proxy's page, a
 * dropped connection) still becomes an ApiError with a body made from what is known.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, status: number, body: ErrorBody) {
    super(body.message || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.requestId = body.requestId;
    this.method = method;
    this.path = path;
  }

  /** The first correction suggestion, if any: what to do about it. */
  get suggestion(): string | undefined {
    return this.body.errors[0]?.correctionSuggestion;
  }
}

export function isErrorBody(value: unknown): value is ErrorBody {
  const v = value as Partial<ErrorBody> | null;
  return !!v && typeof v === 'object' && typeof v.message === 'string' && Array.isArray(v.errors) && typeof v.status === 'number';
}

/** An ApiError from a response and whatever its body parsed to. */
export function apiError(method: string, path: string, response: Response, parsed: unknown): ApiError {
  const requestId = response.headers.get('x-request-id') ?? '';
  if (isErrorBody(parsed)) return new ApiError(method, path, response.status, { ...parsed, requestId: parsed.requestId || requestId });
  const text = typeof parsed === 'string' && parsed ? parsed.slice(0, 200) : `HTTP ${response.status} ${response.statusText}`.trim();
  return new ApiError(method, path, response.status, {
    message: text,
    errors: [{ message: text, type: 'GENERAL', correctionSuggestion: 'The answer was not the API\'s error body: check the base URL and any proxy in between' }],
    status: response.status,
    roles: [],
    scopes: [],
    requestId,
  });
}
