import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { withRequestSignal } from '../db/query-signal.js';

/**
 * Gives each route handler an abort signal that fires when the client goes away before its
 * answer (the response closed unfinished): the statements still running for it are cancelled
 * (src/db/query-signal.ts). Set in preHandler, after the body is read, so the handler and
 * everything it awaits run inside it. The controller and the response's 'close' listener are
 * made only when a statement asks for the signal (ADR 0012): a get answered from the caches
 * never does.
 */
export function registerRequestSignal(app: FastifyInstance) {
  app.addHook('preHandler', (request, reply, done) => {
    withRequestSignal({ signal: lazySignal(reply.raw) }, done);
  });
}

/**
 * The signal of one response, made on the first call. Answered (`end()` called on the response,
 * `writableEnded`): undefined, unless the client left first. Not `writableFinished`: work a
 * handler leaves running after its answer (a webhook replay's enqueueing) must not be cancelled
 * while the last bytes are still being flushed, and app.inject's responses never set it.
 */
export function lazySignal(res: ServerResponse): () => AbortSignal | undefined {
  let controller: AbortController | undefined;
  return () => {
    if (!controller) {
      if (res.writableEnded) return undefined;
      const made = new AbortController();
      controller = made;
      // A client that left before anyone asked: the signal starts aborted.
      if (res.closed) made.abort();
      else res.once('close', () => !res.writableEnded && made.abort());
    }
    return controller.signal.aborted || !res.writableEnded ? controller.signal : undefined;
  };
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
