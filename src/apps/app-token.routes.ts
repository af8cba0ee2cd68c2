import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '../http/error-body.js';
import { oauthErrorCodes, oauthRefusal, type AppTokenService, type OAuthErrorCode } from './app-token.service.js';

const tags = ['apps'];
// A token request is a handful of short fields: anything larger is not one.
const BODY_LIMIT = 8 * 1024;

const tokenRequest = z
  .object({
    grant_type: z.string().max(100).optional(),
    client_id: z.string().max(200).optional(),
    client_secret: z.string().max(500).optional(),
    scope: z.string().max(2000).optional(),
  })
  .meta({ id: 'AppTokenRequest' });

const tokenResponse = z
  .object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() })
  .meta({ id: 'AppAccessToken' });

/** The spec's error body plus the RFC 6749 5.2 members (`error`, `error_description`), on every 400 and 401 of the token endpoint. */
const oauthErrorBody = errorBodySchema
  .extend({ error: z.enum(oauthErrorCodes).optional().describe('always present'), error_description: z.string().optional().describe('always present') })
  .meta({ id: 'AppTokenError' });

/** RFC 6749 2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`; null when absent, 'bad' when malformed. */
function basicCredentials(request: FastifyRequest): { clientId: string; clientSecret: string } | null | 'bad' {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Basic ([A-Za-z0-9+/=]{1,1400})$/i.exec(header.trim());
  if (!match) return 'bad';
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'bad';
  try {
    const form = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: form(decoded.slice(0, colon)), clientSecret: form(decoded.slice(colon + 1)) };
  } catch {
    return 'bad';
  }
}

/** A form body as an object; a parameter sent twice is refused (RFC 6749 3.2). `Object.fromEntries` makes own properties only. */
function formBody(text: string): Record<string, string> | Error {
  const params = new URLSearchParams(text);
  const keys = [...params.keys()];
  if (new Set(keys).size !== keys.length) return oauthRefusal('invalid_request', 'A parameter is sent more than once', 'Send each parameter once');
  return Object.fromEntries(params);
}

/**
 * The OAuth 2 token endpoint of apps (client credentials, RFC 6749 4.4): public, rate limited per
 * client address, form-encoded or JSON bodies, client authentication by HTTP Basic or in the body
 * (never both). Its answers follow the RFC (no envelope; `Cache-Control: no-store`); its 400 and
 * 401 carry the RFC's `error` and `error_description` beside the spec's error body.
 */
export const appTokenRoutes = (deps: { tokens: AppTokenService }): FastifyPluginAsyncZod =>
  async (app) => {
    const codes = new WeakMap<FastifyRequest, OAuthErrorCode>();

    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
      const parsed = formBody(body as string);
      if (parsed instanceof Error) done(parsed, undefined);
      else done(null, parsed);
    });
    app.addHook('onError', async (request, _reply, error) => {
      const code = (error as { extra?: { oauthError?: OAuthErrorCode } }).extra?.oauthError;
      if (code) codes.set(request, code);
    });
    app.addHook('onSend', async (request, reply, payload) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const status = reply.statusCode;
      if ((status !== 400 && status !== 401) || typeof payload !== 'string') return payload;
      const body = JSON.parse(payload) as { message?: string; errors?: { message: string }[]; error?: string };
      if (body.error) return payload;
      if (status === 401) reply.header('www-authenticate', 'Basic realm="apps"');
      const error = codes.get(request) ?? (status === 401 ? 'invalid_client' : 'invalid_request');
      return JSON.stringify({ ...body, error, error_description: body.errors?.[0]?.message ?? body.message ?? error });
    });

    app.post(
      '/oauth/token',
      {
        bodyLimit: BODY_LIMIT,
        config: { auth: 'public', rateLimit: { max: 30, timeWindow: 60_000, keyGenerator: (request: FastifyRequest) => `apps-token:${request.ip}` } },
        schema: {
          tags,
          description:
            'OAuth 2 client credentials (RFC 6749 4.4): grant_type=client_credentials, the installation\'s client_id and client_secret (HTTP Basic or the body, form-encoded or JSON), optional scope (a subset of the granted scopes). Answers a bearer token for the installation\'s company, with the granted scopes; no envelope. Public, 30 a minute per address.',
          body: tokenRequest,
          response: { 200: tokenResponse, 400: oauthErrorBody, 401: oauthErrorBody },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const basic = basicCredentials(request);
        if (basic === 'bad') throw oauthRefusal('invalid_client', 'Malformed HTTP Basic client authentication', 'Send Authorization: Basic base64(client_id:client_secret), each form-urlencoded');
        if (body.grant_type === undefined) throw oauthRefusal('invalid_request', 'grant_type is missing', 'Send grant_type=client_credentials');
        if (body.grant_type !== 'client_credentials') throw oauthRefusal('unsupported_grant_type', 'Only the client_credentials grant is supported', 'Send grant_type=client_credentials');
        const inBody = body.client_id !== undefined || body.client_secret !== undefined;
        if (basic && inBody) throw oauthRefusal('invalid_request', 'The client authenticates in two ways at once', 'Send the client credentials either as HTTP Basic or in the body, not both');
        const clientId = basic?.clientId ?? body.client_id;
        const clientSecret = basic?.clientSecret ?? body.client_secret;
        if (!clientId || !clientSecret) throw oauthRefusal('invalid_client', 'Client authentication is missing', 'Send client_id and client_secret (HTTP Basic or the body)');
        return deps.tokens.issue({ clientId, clientSecret, scope: body.scope }, Date.now());
      },
    );
  };
