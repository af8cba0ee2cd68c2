import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { sendError } from '../http/error-handler.js';
import { errorResponses } from '../schema/http-common.js';
import type { BillingService } from '../billing/billing.service.js';
import { BILLING_REFUSED_STATUS } from '../billing/billing.edge.js';
import type { IngestQueue } from './ingest-queue.js';
import { cleanPath, cleanReferrer, collectAnswer, collectBody } from './tracking.schemas.js';
import type { TrackingService } from './tracking.service.js';
import { isBotAgent, refusesTracking } from './visitor.js';

const overloaded = () =>
  new DomainError('RATE_LIMITED', 'Tracking ingest busy', [{ message: 'The server holds as many tracking batches as it takes; this one was not kept', type: 'GENERAL', correctionSuggestion: 'Send the same batch again after Retry-After seconds' }], { retryAfterSeconds: 1 });

const unknownKey = () =>
  new DomainError('NOT_FOUND', 'Unknown site key', [{ message: 'No company has this site key (or it was rotated)', type: 'NOT_FOUND', correctionSuggestion: "Use the company's current site key (GET /api/v2/tracking/site)" }]);

const missingKey = () =>
  new DomainError('VALIDATION_FAILED', 'Site key missing', [{ message: 'Send the site key as siteKey in the body or the x-site-key header', type: 'VALIDATION', correctionSuggestion: 'Add the site key of the company (GET /api/v2/tracking/site)', field: 'siteKey' }]);

/**
 * `POST /api/v2/tracking/collect`: the public, batched ingest (docs/tracking.md). A place in the
 * bounded queue is taken before the body is read (429 with Retry-After when there is none) and
 * given back when the batch is answered; the 202 comes after the commit.
 */
export const collectRoute = (deps: { tracking: TrackingService; queue: IngestQueue; billing: Pick<BillingService, 'gate'>; bodyLimit: number }): FastifyPluginAsyncZod =>
  async (app) => {
    const { tracking, queue } = deps;
    const admitted = new WeakSet<FastifyRequest>();
    const release = (request: FastifyRequest) => {
      if (admitted.delete(request)) queue.release();
    };

    app.post(
      '/collect',
      {
        config: { auth: 'public', billingExempt: true, rateLimit: false },
        bodyLimit: deps.bodyLimit,
        schema: {
          tags: ['tracking'],
          description: "Page views and custom events of one visitor, in a batch, for the company of the site key. DNT: 1 or Sec-GPC: 1 keeps nothing; bots are dropped. 202 once committed; 429 with Retry-After when busy (send the same batch again: its event ids count once).",
          body: collectBody,
          response: { 202: collectAnswer, ...errorResponses(402, 404, 429) },
        },
        onRequest: (request, _reply, done) => {
          if (!queue.admit()) return done(overloaded());
          admitted.add(request);
          done();
        },
        onResponse: (request, _reply, done) => {
          release(request);
          done();
        },
        onRequestAbort: (request, done) => {
          release(request);
          done();
        },
      },
      async (request, reply) => {
        const { body } = request;
        reply.code(202);
        const userAgent = String(request.headers['user-agent'] ?? '');
        if (refusesTracking(request.headers) || isBotAgent(userAgent)) return { received: body.events.length, kept: false };
        const header = request.headers['x-site-key'];
        const siteKey = body.siteKey ?? (typeof header === 'string' ? header : undefined);
        if (!siteKey || siteKey.length > 64) throw missingKey();
        const now = Date.now();
        const tenant = await tracking.tenantOf(siteKey, now);
        if (!tenant) throw unknownKey();
        const gate = await deps.billing.gate(tenant, now);
        if (gate.access === 'read-only') {
          return sendError(request, reply, BILLING_REFUSED_STATUS, 'The company cannot take this request now', [
            { message: 'The company this request is for does not take changes at the moment', type: 'GENERAL', correctionSuggestion: 'Try again later, or contact the owner of the site' },
          ]);
        }
        const events = body.events.map((e) => ({ ...e, path: cleanPath(e.path), referrer: cleanReferrer(e.referrer) }));
        await tracking.ingest(tenant, body.batchId, events, { address: request.ip, userAgent }, now);
        return { received: events.length, kept: true };
      },
    );
  };
