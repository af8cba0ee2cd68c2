import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Webhook } from 'standardwebhooks';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { envelope, ok } from '../http/envelope.js';
import { errorResponses } from '../schema/http-common.js';
import { billingHookBody } from './billing.schemas.js';
import type { BillingService } from './billing.service.js';

const HOOK_BODY_LIMIT = 16 * 1024;

const refused = (why: string) =>
  new DomainError('UNAUTHENTICATED', 'Billing hook refused', [
    { message: why, type: 'GENERAL', correctionSuggestion: 'Sign the exact body with the shared secret (Standard Webhooks: webhook-id, webhook-timestamp within 5 minutes, webhook-signature)' },
  ]);

const notConfigured = () =>
  // A public door: a 404 as for a route that is not there (not a 5xx, and nothing of the server's configuration).
  new DomainError('NOT_FOUND', 'No billing hook on this server', [
    { message: 'The billing hook is not enabled on this server', type: 'NOT_FOUND', correctionSuggestion: "Ask the server's operator to enable the billing hook (docs/billing.md)" },
  ]);

/**
 * `POST /api/v2/billing/hook`: the billing provider's signed status change. The signature is
 * checked over the raw body (Standard Webhooks, 5-minute replay window) before the body is parsed;
 * a delivery applied already (same `webhook-id`) or older than the last one changes nothing.
 */
export const billingHookRoute = (deps: { billing: BillingService; secret?: string }): FastifyPluginAsyncZod =>
  async (app) => {
    const verifier = deps.secret ? (deps.secret.startsWith('whsec_') ? new Webhook(deps.secret) : new Webhook(Buffer.from(deps.secret, 'utf8'), { format: 'raw' })) : null;
    // This plugin's JSON parser keeps the text: the signature covers the bytes as sent.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: HOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

    app.post(
      '/hook',
      {
        config: { auth: 'public', billingExempt: true },
        bodyLimit: HOOK_BODY_LIMIT,
        schema: {
          tags: ['billing'],
          description: 'The billing provider sets a company status. Signed with Standard Webhooks (headers webhook-id, webhook-timestamp, webhook-signature); idempotent by webhook-id.',
          headers: z.object({ 'webhook-id': z.string().min(1).max(200), 'webhook-timestamp': z.string().regex(/^\d{1,12}$/), 'webhook-signature': z.string().min(1).max(2000) }).loose(),
          body: billingHookBody,
          response: { 200: envelope(z.object({ applied: z.boolean() })), ...errorResponses(401, 404, 503) },
        },
        preValidation: (request, _reply, done) => {
          if (!verifier) return done(notConfigured());
          const raw = request.body;
          if (typeof raw !== 'string') return done(refused('The body is missing'));
          const h = request.headers;
          try {
            (request as { body: unknown }).body = verifier.verify(raw, { 'webhook-id': String(h['webhook-id'] ?? ''), 'webhook-timestamp': String(h['webhook-timestamp'] ?? ''), 'webhook-signature': String(h['webhook-signature'] ?? '') });
          } catch {
            return done(refused('The signature does not match the body, or the timestamp is outside the 5-minute window'));
          }
          done();
        },
      },
      async (request) => {
        const { companyUuid, ...change } = request.body.data;
        const now = Date.now();
        const ctx = { tenant: companyUuid, userUuid: null, requestId: request.id, now };
        const hook = { webhookId: request.headers['webhook-id'], sentAt: Number(request.headers['webhook-timestamp']) * 1000 };
        const { changed } = await deps.billing.fromHook(ctx, change, hook);
        return ok({ applied: changed });
      },
    );
  };
