import type { FastifyRequest } from 'fastify';
import type { Role } from '../../aggregates/membership/roles.js';
import type { CommandContext } from '../commands/command-handler.js';

/** Who is calling, set on `request.actor` by the auth hook for every route that is not public. */
export interface Actor {
  userUuid: string;
  email: string;
  emailVerified: boolean;
  /** The selected company: the tenant of every read and write. Null when none is selected. */
  tenant: string | null;
  /** The company the session selected, even when the caller is no longer a member of it. */
  selectedCompany: string | null;
  /** The caller's role in the selected company (SUPER_ADMIN overrides), null when not a member. */
  role: Role | null;
  /** Scopes held in the selected company: the membership's plus those of the caller's teams. */
  scopes: string[];
  superAdmin: boolean;
  /** The session key (hash of the bearer token), for logout and company selection. */
  sessionId: string;
  /** Set when an app's access token calls (the client-credentials grant, docs/apps.md): userUuid is then the app's uuid. */
  appUuid?: string | null;
}

/** An actor on a company route: the auth hook has checked membership, so the tenant is set. */
export interface CompanyActor extends Actor {
  tenant: string;
  role: Role;
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
}

/**
 * The actor of a company-scoped route (declared with `{ roles, scopes }`). Called on a route
 * declared 'public' or 'signed-in' it throws a plain Error (a 500): the declaration is wrong.
 */
export function companyActor(request: FastifyRequest): CompanyActor {
  const actor = request.actor;
  if (!actor || !actor.tenant || !actor.role) throw new Error(`${request.routeOptions.url}: companyActor() needs config.auth { roles, scopes }`);
  return actor as CompanyActor;
}

/** The signed-in actor of any route that is not public. */
export function signedInActor(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error(`${request.routeOptions.url}: signedInActor() needs a route that is not public`);
  return request.actor;
}

/** Command metadata for a write by the calling company actor. */
export function commandContext(request: FastifyRequest, tenant = companyActor(request).tenant): CommandContext {
  return { tenant, userUuid: request.actor?.userUuid ?? null, requestId: request.id, now: Date.now() };
}

/** Whether the actor holds a scope (ADMIN and SUPER_ADMIN hold them all). */
export const hasScope = (actor: Actor, scope: string) => actor.role === 'ADMIN' || actor.superAdmin || actor.scopes.includes(scope);
