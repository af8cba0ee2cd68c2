import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { Role } from '../../aggregates/membership/roles.js';
import { sandboxNamed } from '../../read-models/sandboxes.queries.js';
import { missingGrants } from '../auth/authorize.js';
import type { Db } from '../db/db.js';
import { SANDBOX_HEADER, percentageOf } from './sandboxes.schemas.js';

/** Who may work in a sandbox (the header): the company's ADMINs and DEVELOPERs (SUPER_ADMIN passes). */
export const SANDBOX_USERS: readonly Role[] = ['ADMIN', 'DEVELOPER'];

/**
 * Routes about the company's identity (the company, its members, partners, the sandboxes
 * themselves, the session): a sandbox keeps the company's identity, so with the header they read
 * the company, and a write is refused (production is never written through a sandbox).
 */
const IDENTITY = /^\/api\/v2\/(companies|partners|developer-sandboxes|auth)(\/|$)/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const isRead = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD' || (request.method === 'POST' && /\/index$/.test(request.routeOptions.url ?? ''));

const sandboxNotFound = (uuid: string) =>
  new DomainError('NOT_FOUND', `Sandbox ${uuid} not found`, [
    {
      message: `The X-Platform-Sandbox-Uuid header names no live sandbox of the selected company (${uuid})`,
      type: 'NOT_FOUND',
      correctionSuggestion: 'List the company\'s sandboxes with GET /api/v2/developer-sandboxes and send one of their uuids, or leave the header out to work in production',
    },
  ]);

/**
 * `X-Platform-Sandbox-Uuid` (spec 5.7): after authentication, the request's tenant becomes the
 * sandbox's, so every read and write of the request goes to the sandbox. An unknown, deleted or
 * another company's sandbox is the same 404; a sandbox still cloning (or failed) a 409.
 */
export function registerSandboxHeader(app: FastifyInstance, db: Db) {
  app.addHook('onRequest', async (request) => {
    const raw = request.headers[SANDBOX_HEADER];
    if (raw === undefined) return;
    const uuid = (Array.isArray(raw) ? raw.join(',') : raw).trim().toLowerCase();
    const auth = request.routeOptions.config.auth;
    const actor = request.actor;
    // Public routes have no company to find the sandbox in: the same 404 as an unknown sandbox.
    if (!actor || auth === undefined || auth === 'public' || !actor.tenant || !UUID.test(uuid)) throw sandboxNotFound(uuid.slice(0, 40));
    const row = await sandboxNamed(db, uuid);
    if (!row || row.deleted_at !== null || row.tenant !== actor.tenant) throw sandboxNotFound(uuid);
    if (auth === 'signed-in') return;
    const missing = missingGrants({ roles: SANDBOX_USERS }, actor);
    if (missing.roles.length) {
      throw new DomainError('FORBIDDEN', `Not allowed: working in a sandbox needs one of the roles ${missing.roles.join(', ')}`, [
        { message: 'Only the company\'s ADMINs and DEVELOPERs work in its sandboxes', type: 'GENERAL', correctionSuggestion: 'Leave the header out, or ask an ADMIN of the company for the DEVELOPER role' },
      ], { roles: missing.roles, scopes: [] });
    }
    if (row.status !== 'ready') {
      throw new DomainError('STATE_NOT_ALLOWED', row.status === 'cloning' ? `Sandbox ${uuid} is still cloning (${percentageOf(row)} %)` : `Sandbox ${uuid} failed to clone`, [
        {
          message: row.status === 'cloning' ? 'The sandbox answers once its clone is done' : 'The clone of this sandbox failed; it holds no usable copy',
          type: 'GENERAL',
          correctionSuggestion: row.status === 'cloning' ? 'Poll GET /api/v2/developer-sandboxes/{uuid} until its status is ready' : 'Delete the sandbox and create another',
        },
      ]);
    }
    if (IDENTITY.test(request.routeOptions.url ?? '')) {
      if (isRead(request)) return;
      throw new DomainError('STATE_NOT_ALLOWED', 'A sandbox keeps the company\'s identity: it cannot be changed through a sandbox', [
        { message: 'Companies, members, partners, sandboxes and sessions are the company\'s own, outside any sandbox', type: 'GENERAL', correctionSuggestion: 'Send this request without the X-Platform-Sandbox-Uuid header' },
      ]);
    }
    request.actor = { ...actor, tenant: uuid };
  });
}
