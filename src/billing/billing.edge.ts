import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { RouteAuth } from '../auth/authorize.js';
import { sendError } from '../http/error-handler.js';
import type { BillingGate, BillingService } from './billing.service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A POST (or PUT) that changes nothing: a query. A suspended company may call it. A POST whose
     * path has an `index` segment (`.../index`, `.../index/{x}`: the spec's list habit) is one
     * without saying so (docs/billing.md).
     */
    readOnly?: boolean;
    /** A route a company of any billing status may call: the way out of a suspension (docs/billing.md). */
    billingExempt?: boolean;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The status code of a write refused for billing (docs/billing.md). */
export const BILLING_REFUSED_STATUS = 402;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const INDEX_SEGMENT = /\/index(\/|$)/;

/** How the billing status applies to a route: 'read' always passes, 'write' is refused when read only. */
export function billingKind(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): 'read' | 'write' | 'exempt' {
  const config = (route.config ?? {}) as { readOnly?: boolean; billingExempt?: boolean };
  if (config.billingExempt) return 'exempt';
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (methods.every((m) => READ_METHODS.has(String(m)))) return 'read';
  if (config.readOnly || INDEX_SEGMENT.test(route.url ?? '')) return 'read';
  return 'write';
}

const statusText = (gate: BillingGate) =>
  gate.status === 'TRIAL' ? `the company's trial ended${gate.trialEndsAt !== null ? ` at ${new Date(gate.trialEndsAt).toISOString()}` : ''}` : `the company's billing status is ${gate.status}`;

function refuse(request: FastifyRequest, reply: FastifyReply, gate: BillingGate, member: boolean) {
  const status = gate.status === 'TRIAL' ? 'TRIAL (ended)' : gate.status;
  // A public caller (a visitor of the company's site) is not told the company's billing status.
  if (!member) {
    return sendError(request, reply, BILLING_REFUSED_STATUS, 'The company cannot take this request now', [
      { message: 'The company this request is for does not take changes at the moment', type: 'GENERAL', correctionSuggestion: 'Try again later, or contact the owner of the site' },
    ]);
  }
  return sendError(request, reply, BILLING_REFUSED_STATUS, `Company is read only: billing status ${status}`, [
    {
      message: `Writes are refused because ${statusText(gate)}; signing in, reading and exporting still work`,
      type: 'GENERAL',
      correctionSuggestion: 'An ADMIN of the company can ask for a billing setup link with POST /api/v2/billing/setup-email and settle the account; writes work again once billing is ACTIVE',
    },
  ]);
}

function warn(reply: FastifyReply, gate: BillingGate) {
  reply.header('x-billing-status', gate.status);
  if (gate.status === 'TRIAL' && gate.trialEndsAt !== null) reply.header('x-billing-trial-ends-at', String(gate.trialEndsAt));
  if (gate.access === 'warn') reply.header('x-billing-warning', 'PAST_DUE: a payment of the company is overdue; an ADMIN can settle it through POST /api/v2/billing/setup-email before the company is suspended');
}

/**
 * The billing status at the edge (registered after authentication, before any route): a company
 * that is read only (SUSPENDED, or a TRIAL past its end) gets 402 on every write route; PAST_DUE
 * and TRIAL answer with headers. Public write routes of a company (a `companyUuid` path
 * parameter) are refused the same way. SUPER_ADMIN passes (operators repair data).
 */
export function registerBillingEdge(app: FastifyInstance, billing: Pick<BillingService, 'gate'>) {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    if (route.url.startsWith('/api/v2')) schema['x-billing'] = billingKind(route);
  });

  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config as { auth?: RouteAuth } & Parameters<typeof billingKind>[0]['config'];
    if (request.is404 || config?.auth === undefined) return done();
    const actor = request.actor;
    if (actor?.superAdmin) return done();
    const member = typeof config.auth === 'object';
    const params = request.params as Record<string, unknown> | undefined;
    const kind = billingKind({ method: request.method as never, url: request.routeOptions.url ?? '', config });
    // A public route's company is a path parameter not yet checked (this runs before validation): only a uuid, and only for a write, is looked up.
    const publicCompany = config.auth === 'public' && kind === 'write' && typeof params?.companyUuid === 'string' && UUID.test(params.companyUuid) ? params.companyUuid : null;
    const tenant = member ? actor?.tenant : publicCompany;
    if (!tenant) return done();
    const apply = (gate: BillingGate) => {
      if (member && gate.status !== 'ACTIVE') warn(reply, gate);
      if (gate.access === 'read-only' && kind === 'write') return void refuse(request, reply, gate, member);
      done();
    };
    const gate = billing.gate(tenant, Date.now());
    if (gate instanceof Promise) gate.then(apply, done);
    else apply(gate);
  });
}
