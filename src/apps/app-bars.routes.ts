import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { envelope, ok } from '../http/envelope.js';
import { optionalBody } from '../http/optional-body.js';
import type { AppBarsService } from './app-bars.service.js';

const tags = ['app bars'];
const params = z.object({ appBarUuid: z.uuid() });
const context = z.object({ recordUuid: z.uuid().optional(), viewUuid: z.uuid().optional(), filter: z.unknown().optional() });
const tokenSchema = z.string().max(200);

const barSchema = z.object({ uuid: z.string(), appUuid: z.string(), appLabel: z.string(), label: z.string(), location: z.string(), type: z.string(), url: z.string().nullable() }).meta({ id: 'AppBar' });
const safeContext = z
  .object({
    appUuid: z.string(),
    appBarUuid: z.string(),
    user: z.object({ uuid: z.string(), firstname: z.string(), lastname: z.string() }),
    company: z.object({ uuid: z.string(), name: z.string() }),
    recordUuid: z.string().nullable(),
    viewUuid: z.string().nullable(),
    filter: z.unknown(),
  })
  .meta({ id: 'IframeSessionContext' });

/** App bars (spec 4.15) under /api/v2/app-bars. */
export const appBarsRoutes = (deps: { bars: AppBarsService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { bars } = deps;
    const member = { auth: {} };

    app.get(
      '/',
      { config: member, schema: { tags, description: 'App bars of the installed apps at a location (RECORD, RECORD_LIST, DASHBOARD; all when absent).', querystring: z.object({ location: z.enum(['RECORD', 'RECORD_LIST', 'DASHBOARD']).optional() }), response: { 200: envelope(z.array(barSchema)) } } },
      async (request) => {
        const rows = await bars.list(companyActor(request).tenant, request.query.location ?? null);
        return ok(rows.map(({ app: a, bar }) => ({ uuid: bar.uuid, appUuid: a.app_uuid, appLabel: a.label, label: bar.label, location: bar.location, type: bar.type, url: bar.url })));
      },
    );

    app.post(
      '/iframe-session/validate',
      {
        config: { auth: 'public', rateLimit: { max: 120, timeWindow: 60_000 } },
        bodyLimit: 4096,
        schema: {
          tags,
          description: 'Public: the embedded app validates its iframe token (query or field platform_iframe_token) once, within its lifetime, and receives safe context.',
          querystring: z.object({ platform_iframe_token: tokenSchema.optional() }),
          body: optionalBody(z.object({ platform_iframe_token: tokenSchema.optional() }), () => ({})),
          response: { 200: envelope(safeContext) },
        },
      },
      async (request) => {
        const token = request.query.platform_iframe_token ?? request.body.platform_iframe_token;
        if (!token) {
          throw new DomainError('VALIDATION_FAILED', 'platform_iframe_token is required', [
            { message: 'Send the token as the query parameter or body field platform_iframe_token', type: 'VALIDATION', correctionSuggestion: 'POST /app-bars/iframe-session/validate?platform_iframe_token=<token>' },
          ]);
        }
        return ok(await bars.validate(token, Date.now()));
      },
    );

    app.post(
      '/:appBarUuid/iframe-session',
      { config: member, schema: { tags, description: 'A token for the iframe (256 random bits, valid APPS_IFRAME_TOKEN_TTL_MS, once).', params, body: optionalBody(context, () => ({})), response: { 201: envelope(z.object({ token: z.string(), expiresAt: z.number().int(), url: z.string().nullable() })) } } },
      async (request, reply) => {
        reply.code(201);
        return ok(await bars.issue(commandContext(request), request.params.appBarUuid, request.body), 'created');
      },
    );

    app.post(
      '/:appBarUuid/trigger',
      {
        config: member,
        schema: { tags, description: 'Fires the app bar webhook at the app (signed) with settings values and record or view context.', params, body: optionalBody(context.extend({ settings: z.record(z.string().max(64), z.unknown()).default({}) }), () => ({ settings: {} })), response: { 200: envelope(z.object({ delivered: z.boolean(), statusCode: z.number().int() })) } },
      },
      async (request) => ok(await bars.trigger(commandContext(request), request.params.appBarUuid, request.body), 'triggered'),
    );
  };
