import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The abort signal of the HTTP request a statement runs for (src/http/request-signal.ts sets it
 * for the route's handler). When the client goes away before its answer, the statements still
 * running for it are cancelled (PostgreSQL: pg_cancel_backend of the backend running them;
 * PGlite: a statement not yet started is not started).
 *
 * Work one request starts on behalf of others (a group commit, a batched read, waking the
 * subscribers) must run `detached`: a client leaving must never cancel someone else's statement.
 */
export interface RequestScope {
  /**
   * The request's signal while it is being answered or once its client left; undefined once the
   * response was sent (work still running in its context, a loop it woke, is on its own).
   */
  signal(): AbortSignal | undefined;
}
const current = new AsyncLocalStorage<RequestScope>();

export const withRequestSignal = <T>(scope: RequestScope, fn: () => T): T => current.run(scope, fn);

/** The signal of the request this code runs for, while it is being answered or once its client left. */
export function requestSignal(): AbortSignal | undefined {
  return current.getStore()?.signal();
}

/** Runs `fn` (and all it schedules) outside any request. */
export const detached = <T>(fn: () => T): T => current.exit(fn);

/** PostgreSQL's query_canceled: a statement timeout, or a cancel sent for a client that left. */
export const QUERY_CANCELED = '57014';

/** The error a statement gets when its request was aborted before it started. */
export function requestGone(): Error {
  return Object.assign(new Error('canceling statement due to user request: the client went away'), { code: QUERY_CANCELED });
}

/** True when `err` is a statement cancelled by the server (timeout) or for a client that left. */
export const isCancelledStatement = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === QUERY_CANCELED;
