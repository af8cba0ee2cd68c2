import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, type ErrorDetail } from '../../aggregates/kernel/errors.js';
import { errorBody, statusOf } from './error-body.js';
import { validationDetails } from './validation-details.js';
import { MAX_PATH_PARAM_LENGTH } from './path-params.js';
import { isCancelledStatement } from '../db/query-signal.js';
import { statementTimeout } from './request-signal.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../db/unavailable.js';

interface FrameworkFailure {
  status: number;
  message: string;
  detail: Omit<ErrorDetail, 'field'>;
}

// Fastify's own errors, by code, as the spec's error body.
const frameworkFailures: Record<string, FrameworkFailure> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    message: 'Malformed JSON body',
    detail: { message: 'The request body is not valid JSON', type: 'VALIDATION', correctionSuggestion: 'Send a well-formed JSON document' },
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    message: 'Empty JSON body',
    detail: { message: 'Content-Type is application/json but the body is empty', type: 'VALIDATION', correctionSuggestion: 'Send a JSON body, or drop the Content-Type header' },
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    message: 'Request body too large',
    detail: { message: 'The request body is larger than the server accepts', type: 'VALIDATION', correctionSuggestion: 'Send a smaller body, or split the request' },
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    message: 'Unsupported content type',
    detail: { message: 'The body has a content type this route does not accept', type: 'VALIDATION', correctionSuggestion: 'Send the body as application/json' },
  },
  FST_ERR_BAD_URL: {
    status: 400,
    message: 'Malformed URL',
    detail: { message: 'A path segment is not valid percent-encoded UTF-8', type: 'VALIDATION', correctionSuggestion: 'Percent-encode the path as UTF-8 (encodeURIComponent)' },
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 414,
    message: 'Path parameter too long',
    detail: { message: `A path parameter is longer than the router accepts (${MAX_PATH_PARAM_LENGTH} characters)`, type: 'VALIDATION', correctionSuggestion: 'Send uuids and names as path parameters; longer values go in the body' },
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    message: 'Bad Content-Length',
    detail: { message: 'Content-Length does not match the body', type: 'VALIDATION', correctionSuggestion: 'Send a correct Content-Length header' },
  },
};

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  details: ErrorDetail[],
  extra: { roles?: string[]; scopes?: string[]; stackTrace?: string } = {},
) {
  const production = request.server.platformConfig.NODE_ENV === 'production';
  return reply
    .header('x-request-id', request.id)
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody({ message, status, requestId: request.id, details, ...extra, stackTrace: production ? undefined : extra.stackTrace }));
}

/**
 * Errors the router raises before any route or hook runs (a bad percent-encoding, a path
 * parameter over the router's maximum length): Fastify's `frameworkErrors` option, so they too
 * get the spec's error body instead of Fastify's own `{error, code, message, statusCode}`.
 */
export function frameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = err.code ? frameworkFailures[err.code] : undefined;
  if (known) return sendError(request, reply, known.status, known.message, [known.detail]);
  const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
  if (status >= 500) request.log.error({ err }, 'router error');
  return sendError(request, reply, status, status >= 500 ? 'Internal server error' : 'Bad request', [
    { message: status >= 500 ? 'The server failed to route the request' : err.message, type: status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'VALIDATION', correctionSuggestion: 'Check the request against the OpenAPI document at /api/v2/openapi.json' },
  ]);
}

/** The one place where every failure becomes the spec's error body. */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((caught: FastifyError, request, reply) => {
    const err = isCancelledStatement(caught)
      ? statementTimeout(request.server.platformConfig.STATEMENT_TIMEOUT_MS)
      : isDatabaseUnavailable(caught)
        ? (request.log.warn({ err: caught }, 'database unavailable'), databaseUnavailable())
        : caught;
    if (err instanceof DomainError) {
      const status = statusOf[err.code];
      if ((status === 429 || status === 503) && typeof err.extra.retryAfterSeconds === 'number') reply.header('retry-after', String(err.extra.retryAfterSeconds));
      return sendError(request, reply, status, err.message, err.details, {
        roles: err.extra.roles as string[] | undefined,
        scopes: err.extra.scopes as string[] | undefined,
      });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const details = validationDetails(err.validation, err.validationContext ?? 'body');
      return sendError(request, reply, 400, `Invalid ${err.validationContext ?? 'request'}`, details);
    }
    const known = err.code ? frameworkFailures[err.code] : undefined;
    if (known) return sendError(request, reply, known.status, known.message, [known.detail]);
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendError(request, reply, err.statusCode, err.message, [
        { message: err.message, type: 'VALIDATION', correctionSuggestion: 'Check the request against the OpenAPI document at /api/v2/openapi.json' },
      ]);
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(request, reply, 500, 'Internal server error', [
      { message: 'The server failed to handle the request', type: 'INTERNAL_SERVER_ERROR', correctionSuggestion: `Retry later; if it persists, contact support with requestId ${request.id}` },
    ], { stackTrace: err.stack });
  });
}
