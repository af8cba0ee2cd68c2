import type { FastifyBaseLogger } from 'fastify';

/**
 * Who a request acts for, on every log line of its logger (pino's `mixin`, set in src/app.ts):
 * the auth hook binds the actor to the request's logger once it is known, instead of making a
 * child logger per request (ADR 0012). pino's children inherit from their parent's object, so a
 * child of the request's logger carries them too. Only the tenant and the user's uuid: never the
 * token, the session id or the e-mail.
 */
const ACTOR = Symbol('log actor');

interface LogActor {
  tenant: string | null;
  userUuid: string;
}
type Bindable = FastifyBaseLogger & { [ACTOR]?: LogActor };

export function bindLogActor(log: FastifyBaseLogger, actor: LogActor) {
  (log as Bindable)[ACTOR] = actor;
}

/** pino's mixin: a fresh object each line (pino merges the line's own fields into it). */
export function logActorMixin(_fields: object, _level: number, logger: unknown): object {
  const actor = (logger as Bindable)[ACTOR];
  return actor ? { tenant: actor.tenant, userUuid: actor.userUuid } : {};
}
