import type { FastifyInstance, FastifyRequest, FastifyReply, RouteOptions } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { companyRoles, type Role } from '../../aggregates/membership/roles.js';
import type { Db } from '../db/db.js';
import type { Actor } from './actor.js';
import type { Scope } from './scopes.js';
import { loadSessionActor } from './sessions.js';
import { hashToken } from './tokens.js';
import { cachedActor, type SessionActorRow } from './actor-cache.js';
import { bindLogActor } from '../http/log-actor.js';

/**
 * What a route needs, declared as `config: { auth }`:
 * - `'public'`: no token (login, register, public settings);
 * - `'signed-in'`: a valid token, no company needed (me, select, create a company);
 * - `{ roles, scopes }`: a member of the selected company holding one of `roles` (any company
 *   role when empty or absent) and every one of `scopes`. SUPER_ADMIN passes every check; ADMIN
 *   holds every scope.
 */
export type RouteAuth = 'public' | 'signed-in' | { roles?: readonly Role[]; scopes?: readonly Scope[] };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
}

export interface Grants {
  roles: Role[];
  scopes: string[];
}

/** The roles and scopes the caller lacks for `required` (both empty: allowed). */
export function missingGrants(required: { roles?: readonly Role[]; scopes?: readonly string[] }, actor: Pick<Actor, 'role' | 'scopes' | 'superAdmin'>): Grants {
  if (actor.superAdmin) return { roles: [], scopes: [] };
  const wanted = required.roles?.length ? [...required.roles] : [...companyRoles];
  const roleOk = actor.role !== null && wanted.includes(actor.role);
  const allScopes = actor.role === 'ADMIN';
  return {
    roles: roleOk ? [] : wanted,
    scopes: allScopes ? [] : (required.scopes ?? []).filter((s) => !actor.scopes.includes(s)),
  };
}

const unauthenticated = (reply: FastifyReply, bad: boolean) => {
  reply.header('www-authenticate', bad ? 'Bearer error="invalid_token"' : 'Bearer');
  return new DomainError('UNAUTHENTICATED', bad ? 'Invalid or expired token' : 'Authentication required', [
    {
      message: bad ? 'The bearer token is unknown, expired or revoked' : 'This operation needs an Authorization: Bearer <token> header',
      type: 'GENERAL',
      correctionSuggestion: 'Log in with POST /api/v2/auth/login and send the token as Authorization: Bearer <token>',
    },
  ]);
};

type Refusal = 'no-company' | 'not-member' | 'missing';

const refusalText: Record<Refusal, (needs: string) => [string, string, string]> = {
  'no-company': () => ['No company selected', 'This operation acts for a company, and the session has none selected', 'Select a company with POST /api/v2/auth/companies/{companyUuid}/select'],
  'not-member': (needs) => ['Not a member of the selected company', `This operation needs ${needs} in the selected company, and you are not (or no longer) a member of it`, 'Select another company, or ask an ADMIN of this one to add you'],
  missing: (needs) => [`Not allowed: needs ${needs}`, `This operation needs ${needs} in the selected company`, 'Ask an ADMIN of the company for the missing role or scopes'],
};

function forbidden(missing: Grants, reason: Refusal) {
  const needs = [...(missing.roles.length ? [`one of the roles ${missing.roles.join(', ')}`] : []), ...(missing.scopes.length ? [`the scopes ${missing.scopes.join(', ')}`] : [])].join(' and ');
  const [message, detail, correctionSuggestion] = refusalText[reason](needs);
  return new DomainError('FORBIDDEN', message, [{ message: detail, type: 'GENERAL', correctionSuggestion }], { roles: missing.roles, scopes: missing.scopes });
}

// An app's token acts in its installation's company only: the routes of a user's own session are not its.
const appTokenRefused = () =>
  new DomainError('FORBIDDEN', 'Not allowed with an app token', [
    { message: "This operation acts on a user's own session; an app's access token acts in its installation's company only", type: 'GENERAL', correctionSuggestion: 'Call it with a user\'s token from POST /api/v2/auth/login' },
  ], { roles: [], scopes: [] });

function bearerOf(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(header.trim());
  return match ? match[1]! : null;
}

const EXEMPT = /^\/api\/v2\/(openapi\.json|docs)(\/|$)/;

/** Shows a route's declaration in the OpenAPI document: security, x-roles, x-scopes, a line of description. */
function document(route: RouteOptions, auth: RouteAuth) {
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  if (auth === 'public') {
    schema.security = [];
    schema['x-auth'] = 'public';
    return;
  }
  schema.security = [{ bearer: [] }];
  const line = auth === 'signed-in' ? 'Auth: any signed-in user.' : `Auth: roles ${auth.roles?.length ? auth.roles.join(' | ') : 'any company role'}; scopes ${auth.scopes?.length ? auth.scopes.join(', ') : 'none'}.`;
  if (auth !== 'signed-in') {
    schema['x-roles'] = auth.roles?.length ? [...auth.roles] : [...companyRoles];
    schema['x-scopes'] = [...(auth.scopes ?? [])];
  } else schema['x-auth'] = 'signed-in';
  schema.description = schema.description ? `${String(schema.description)}\n\n${line}` : line;
}

/**
 * The token check and the route-level authorization: every /api/v2 route must declare
 * `config.auth` (startup fails otherwise); the check runs onRequest, before body validation.
 */
export function registerAuth(
  app: FastifyInstance,
  deps: {
    db: Db;
    superAdminEmails: readonly string[];
    /** What a request no route takes needs before its 404 or 405 (default: nothing). */
    unrouted?: (request: FastifyRequest) => RouteAuth | undefined;
  },
) {
  app.decorateRequest('actor', null);

  app.addHook('onRoute', (route) => {
    const auth = (route.config as { auth?: RouteAuth } | undefined)?.auth;
    if (auth === undefined) {
      if (route.url.startsWith('/api/v2') && !EXEMPT.test(route.url) && route.method !== 'HEAD') {
        throw new Error(`route ${String(route.method)} ${route.url} declares no config.auth (see docs/auth.md)`);
      }
      return;
    }
    document(route, auth);
  });

  // A callback hook, not an async one: a session in the actor cache is admitted without a
  // promise (ADR 0012); only a cache miss waits for the database.
  app.addHook('onRequest', (request, reply, done) => {
    const auth = request.routeOptions.config.auth ?? (request.is404 ? deps.unrouted?.(request) : undefined);
    if (auth === undefined || auth === 'public') return done();
    const token = bearerOf(request);
    if (!token) return done(unauthenticated(reply, token === null));
    const sessionId = hashToken(token);
    const now = Date.now();
    const row = cachedActor(sessionId, now);
    if (row) return done(admit(request, reply, auth, actorOf(row, sessionId, deps.superAdminEmails)));
    resolveActor(deps.db, sessionId, deps.superAdminEmails, now, true).then((actor) => done(admit(request, reply, auth, actor)), done);
  });
}

/** Sets the request's actor when it may call the route; else the refusal (401 / 403). */
function admit(request: FastifyRequest, reply: FastifyReply, auth: Exclude<RouteAuth, 'public'>, actor: Actor | null): DomainError | undefined {
  if (!actor) return unauthenticated(reply, true);
  request.actor = actor;
  bindLogActor(request.log, actor);
  if (auth === 'signed-in') return actor.appUuid ? appTokenRefused() : undefined;
  if (actor.tenant === null) {
    const all = { roles: auth.roles?.length ? [...auth.roles] : [...companyRoles], scopes: [...(auth.scopes ?? [])] };
    return forbidden(all, actor.selectedCompany === null ? 'no-company' : 'not-member');
  }
  const missing = missingGrants(auth, actor);
  return missing.roles.length || missing.scopes.length ? forbidden(missing, 'missing') : undefined;
}

/**
 * The actor of a session (the hash of its bearer token), or null when it is unknown, expired or
 * revoked. `cached`: the request path may take it from the actor cache (src/auth/actor-cache.ts).
 */
export async function resolveActor(db: Db, sessionId: string, superAdminEmails: readonly string[], now: number, cached = false): Promise<Actor | null> {
  const row = await loadSessionActor(db, sessionId, now, cached);
  return row && actorOf(row, sessionId, superAdminEmails);
}

function actorOf(row: SessionActorRow, sessionId: string, superAdminEmails: readonly string[]): Actor {
  const superAdmin = row.email_verified && superAdminEmails.includes(row.email.toLowerCase());
  const member = row.role !== null;
  return {
    userUuid: row.user_uuid,
    email: row.email,
    emailVerified: row.email_verified,
    tenant: member || (superAdmin && row.company_exists) ? row.selected_company : null,
    selectedCompany: row.selected_company,
    role: superAdmin ? 'SUPER_ADMIN' : row.role,
    scopes: member ? [...new Set([...(row.scopes ?? []), ...row.team_scopes])] : [],
    superAdmin,
    sessionId,
    appUuid: row.app_uuid ?? null,
  };
}
