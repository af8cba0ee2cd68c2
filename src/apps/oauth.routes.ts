import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import type { OAuthService } from './oauth.service.js';

const tags = ['app runtime'];
const appParams = z.object({ appUuid: z.uuid() });

/** OAuth connections of an installation (spec 4.16): start, the provider's callback, status, revoke. */
export const oauthRoutes = (deps: { oauth: OAuthService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { oauth } = deps;
    const admin = { auth: { scopes: ['apps:install'] as const } };

    app.post(
      '/:appUuid/installation/oauth/:provider/start',
      {
        config: admin,
        schema: { tags, description: 'The provider authorize URL, with state and a PKCE (S256) challenge; the flow is valid APPS_OAUTH_FLOW_TTL_MS, once.', params: appParams.extend({ provider: z.string().min(1).max(40) }), response: { 200: envelope(z.object({ authorizeUrl: z.string(), state: z.string(), expiresAt: z.number().int() })) } },
      },
      async (request) => ok(await oauth.start(commandContext(request), request.params.appUuid, request.params.provider)),
    );

    app.get(
      '/oauth/callback',
      {
        config: { auth: 'public', rateLimit: { max: 60, timeWindow: 60_000 } },
        schema: {
          tags,
          description: 'Public: the provider redirects here with code and state; the code is exchanged (with the PKCE verifier) and the tokens stored sealed.',
          querystring: z.object({ code: z.string().max(4096).optional(), state: z.string().max(200).optional(), error: z.string().max(200).optional(), error_description: z.string().max(2000).optional(), iss: z.string().max(2000).optional() }),
          response: { 200: envelope(z.object({ connectionId: z.string(), provider: z.string(), appUuid: z.string() })) },
        },
      },
      async (request) => {
        const params = new URLSearchParams(Object.entries(request.query).filter(([, v]) => v !== undefined) as [string, string][]);
        return ok(await oauth.callback(params, Date.now(), request.id), 'connected');
      },
    );

    app.get(
      '/:appUuid/installation/connections',
      {
        config: { auth: {} },
        schema: { tags, description: 'OAuth connections and their status (never tokens).', params: appParams, response: { 200: envelope(z.array(z.object({ connectionId: z.string(), provider: z.string(), scope: z.string(), status: z.enum(['CONNECTED', 'EXPIRED']), expiresAt: z.number().int().nullable(), connectedAt: z.number().int() }))) } },
      },
      async (request) => ok(await oauth.connections(companyActor(request).tenant, request.params.appUuid, Date.now())),
    );

    app.delete(
      '/:appUuid/installation/connections/:providerOrConnectionId',
      { config: admin, schema: { tags, description: 'Revokes the tokens (at the provider when it has a revocation endpoint) by connection id or provider name.', params: appParams.extend({ providerOrConnectionId: z.string().min(1).max(100) }), response: { 200: envelope(z.object({ revoked: z.number().int(), revokedAtProvider: z.number().int() })) } } },
      async (request) => ok(await oauth.revoke(commandContext(request), request.params.appUuid, request.params.providerOrConnectionId), 'revoked'),
    );
  };
