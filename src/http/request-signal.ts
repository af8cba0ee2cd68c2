import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { withRequestSignal } from '../db/query-signal.js';

/**
 * Gives each route handler an abort signal that fires when the client goes away before its
 * answer (the response closed unfinished): the statements still running for it are cancelled
 * (src/db/query-signal.ts). Set in preHandler, after the body is read, so the handler and
 * everything it awaits run inside it.
 */
export function registerRequestSignal(app: FastifyInstance) {
  app.addHook('preHandler', (request, reply, done) => {
    const controller = new AbortController();
    const scope = { signal: controller.signal, answering: true };
    const res = reply.raw;
    // Answered: what the handler left running (a dispatcher it woke) no longer belongs to it.
    res.once('finish', () => {
      scope.answering = false;
    });
    res.once('close', () => {
      if (scope.answering && !res.writableFinished) controller.abort();
      scope.answering = false;
    });
    withRequestSignal(scope, done);
  });
}

/** The answer to a statement cancelled by the time limit (or for a client that left). */
export function statementTimeout(limitMs: number): DomainError {
  const seconds = Math.max(1, Math.round(limitMs / 1000));
  return new DomainError(
    'STATEMENT_TIMEOUT',
    'The request took too long and was stopped',
    [
      {
        message: `A database statement of this request ran longer than the server's limit (${limitMs} ms) and was cancelled; nothing it was writing was kept`,
        type: 'PLATFORM_ERROR',
        correctionSuggestion: 'Narrow the request (a more selective filter, fewer sort keys, a smaller page) or retry in a moment',
      },
    ],
    { retryAfterSeconds: seconds },
  );
}
