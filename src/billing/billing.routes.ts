import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { billingSchema, setBillingBody, setupLinkBody, toBilling } from './billing.schemas.js';
import type { BillingService } from './billing.service.js';
import { billingHookRoute } from './billing-hook.route.js';

const tags = ['billing'];
const companyParams = z.object({ companyUuid: z.uuid() });

/** Billing status (issue 40, docs/billing.md): `/api/v2/billing`. */
export const billingRoutes = (deps: { billing: BillingService; hookSecret?: string }): FastifyPluginAsyncZod =>
  async (app) => {
    const { billing } = deps;
    const superAdmin = { auth: { roles: ['SUPER_ADMIN'] as const }, billingExempt: true };

    app.get('/', { config: { auth: {}, billingExempt: true }, schema: { tags, description: "The selected company's billing status.", response: { 200: envelope(billingSchema) } } }, async (request) => {
      const { tenant } = companyActor(request);
      return ok(toBilling(tenant, await billing.status(tenant), Date.now()));
    });

    app.get('/companies/:companyUuid', { config: superAdmin, schema: { tags, params: companyParams, response: { 200: envelope(billingSchema) } } }, async (request) =>
      ok(toBilling(request.params.companyUuid, await billing.status(request.params.companyUuid), Date.now())),
    );

    app.put(
      '/companies/:companyUuid',
      { config: superAdmin, schema: { tags, description: "Sets a company's billing status (an event on its billing stream).", params: companyParams, body: setBillingBody, response: { 200: envelope(billingSchema) } } },
      async (request) => {
        const ctx = commandContext(request, request.params.companyUuid);
        const { billing: row } = await billing.set(ctx, request.body);
        return ok(toBilling(ctx.tenant, row, ctx.now), 'updated');
      },
    );

    app.post(
      '/setup-email',
      {
        config: { auth: { roles: ['ADMIN'] as const }, billingExempt: true },
        schema: { tags, description: 'Mails the calling ADMIN a one-time link to set up billing for the selected company.', response: { 202: envelope(z.object({ expiresAt: z.number().int() })) } },
      },
      async (request, reply) => {
        const actor = companyActor(request);
        const sent = await billing.sendSetupMail({ ...commandContext(request), userUuid: actor.userUuid }, actor.email);
        reply.code(202);
        return ok(sent, 'sent');
      },
    );

    app.post(
      '/setup',
      {
        config: { auth: 'public', billingExempt: true, rateLimit: { max: 30, timeWindow: 60_000 } },
        schema: {
          tags,
          description: "Uses a setup e-mail's one-time link: the company's billing status and where to pay.",
          body: setupLinkBody,
          response: { 200: envelope(z.object({ billing: billingSchema, checkoutUrl: z.string().nullable() })) },
        },
      },
      async (request) => {
        const now = Date.now();
        const used = await billing.openSetupLink(request.body.token, now);
        return ok({ billing: toBilling(used.companyUuid, used.billing, now), checkoutUrl: used.checkoutUrl });
      },
    );

    await app.register(billingHookRoute({ billing, secret: deps.hookSecret }));
  };
