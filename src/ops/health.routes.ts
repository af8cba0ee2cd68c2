import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, type ErrorDetail } from '../../aggregates/kernel/errors.js';
import type { Db } from '../db/db.js';
import { detached } from '../db/query-signal.js';
import { envelope, ok } from '../http/envelope.js';
import { runningReactors } from '../reactors/runner.js';

const DB_CHECK_MS = 2000;

const healthSchema = z.object({
  status: z.literal('ready'),
  database: z.literal('up'),
  reactors: z.enum(['running', 'disabled']),
});

/**
 * `GET /api/v2/health`, public: liveness and readiness in one. Any answer says the process is
 * alive; 200 says it is ready (the database answers within 2 s, the reactors run, it is not
 * shutting down); 503 with the error body names what is not. Nothing internal is in either.
 */
export const healthRoutes = (deps: { db: Db; reactorsEnabled: boolean; closing: () => boolean }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/',
      {
        config: { auth: 'public' },
        schema: { tags: ['health'], description: 'Liveness and readiness: 200 when the database and the reactors are up, 503 (error body) when not.', response: { 200: envelope(healthSchema) } },
      },
      async () => {
        const failures: ErrorDetail[] = [];
        if (deps.closing()) failures.push(failure('The server is shutting down', 'Send requests to another instance, or wait for the restart'));
        if (!(await databaseAnswers(deps.db))) failures.push(failure('The database does not answer', 'Check that the database is running and reachable, then retry'));
        const reactorsUp = !deps.reactorsEnabled || runningReactors(deps.db).length > 0;
        if (!reactorsUp) failures.push(failure('The reactors (webhook delivery, syncs) are not running', 'Wait for the start to finish, or restart the server'));
        if (failures.length > 0) throw new DomainError('NOT_READY', 'Not ready', failures, { retryAfterSeconds: 1 });
        return ok({ status: 'ready' as const, database: 'up' as const, reactors: deps.reactorsEnabled ? ('running' as const) : ('disabled' as const) }, 'OK');
      },
    );
  };

const failure = (message: string, correctionSuggestion: string): ErrorDetail => ({ message, type: 'PLATFORM_ERROR', correctionSuggestion });

/** `select 1` within DB_CHECK_MS (a busy pool or a server gone counts as down). */
async function databaseAnswers(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DB_CHECK_MS);
  });
  // Detached: a prober that hangs up must not cancel the check for the next one.
  const check = detached(() => db.query('select 1')).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}
