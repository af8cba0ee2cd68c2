import { randomUUID } from 'node:crypto';
import { sha256 as hash } from '../auth/sha256.js';
import * as oauth from 'oauth4webapi';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import type { OAuthProvider } from '../../aggregates/app/app.events.js';
import { connectionsOf, secretsOf, type AppRow } from '../../read-models/apps.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { readAnswer, sendPinned, UrlRefused, type UrlGuard } from '../outbound/index.js';
import type { AppsService } from './apps.service.js';
import { secretAad } from './runtime.service.js';
import type { SecretBox } from './secret-box.js';

const tokensAad = (tenant: string, appUuid: string, connectionId: string) => `${tenant}:${appUuid}:oauth:${connectionId}`;
const flowAad = (tenant: string, appUuid: string) => `${tenant}:${appUuid}:oauth-flow`;

const failed = (what: string, suggestion: string) => new DomainError('STATE_NOT_ALLOWED', what, [{ message: what, type: 'PLATFORM_ERROR', correctionSuggestion: suggestion }]);

// A provider's answer is a small JSON document; a longer one is refused rather than held in memory.
const MAX_ANSWER = 256 * 1024;

/** fetch for oauth4webapi through the shared address guard: the resolved address pinned, no redirects, the answer read up to 256 KiB. */
function guardedFetch(guard: UrlGuard, timeoutMs: number) {
  return async (url: string, init: { method?: string; headers?: HeadersInit; body?: unknown }) => {
    let target;
    try {
      target = await guard.resolve(url);
    } catch (err) {
      if (err instanceof UrlRefused) throw failed(`the provider endpoint is refused: ${err.reason}`, 'The app\'s OAuth endpoints must be public http(s) addresses');
      throw err;
    }
    const request = {
      method: (init.method ?? 'GET') as 'GET' | 'POST',
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: typeof init.body === 'string' || init.body instanceof URLSearchParams ? String(init.body) : undefined,
    };
    const answer = await sendPinned(target, request, { timeoutMs }, async (res) => ({ statusCode: res.statusCode, headers: res.headers, body: await readAnswer(res, MAX_ANSWER) }));
    if (answer.body === null) throw failed(`the provider's answer passes ${MAX_ANSWER} bytes`, 'The provider answers with a small JSON document; check the app\'s OAuth endpoints');
    const headers = new Headers();
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    return new Response(answer.statusCode === 204 ? null : new Uint8Array(answer.body), { status: answer.statusCode, headers });
  };
}

/**
 * OAuth 2 connections of an installation (spec 4.16): authorization code with state and PKCE
 * (oauth4webapi). The flow's verifier is sealed, its state kept as a hash, single use; tokens are
 * sealed into the installation's stream. The client secret, when the provider needs one, is the
 * installation secret `oauth.<provider>.clientSecret`.
 */
export function makeOAuthService(deps: { db: Db; apps: AppsService; box: SecretBox; guard: UrlGuard; appUrl: string; flowTtlMs: number; timeoutMs: number }) {
  const { db, apps, box } = deps;
  const redirectUri = new URL('/api/v2/apps/oauth/callback', deps.appUrl).toString();
  const options = { [oauth.customFetch]: guardedFetch(deps.guard, deps.timeoutMs), [oauth.allowInsecureRequests]: true } as const;

  function providerOf(app: AppRow, name: string): OAuthProvider {
    const provider = (app.oauth_providers ?? []).find((p) => p.name === name);
    if (!provider) throw notFound('OAuth provider', name);
    return provider;
  }

  const server = (p: OAuthProvider): oauth.AuthorizationServer => ({
    issuer: p.issuer,
    authorization_endpoint: p.authorizationEndpoint,
    token_endpoint: p.tokenEndpoint,
    ...(p.revocationEndpoint ? { revocation_endpoint: p.revocationEndpoint } : {}),
  });

  async function clientAuth(tenant: string, appUuid: string, provider: string): Promise<oauth.ClientAuth> {
    const name = `oauth.${provider}.clientSecret`;
    const sealed = (await secretsOf(db, tenant, appUuid)).find((s) => s.name === name);
    return sealed ? oauth.ClientSecretPost(box.open(sealed.ciphertext, secretAad(tenant, appUuid, name))) : oauth.None();
  }

  return {
    redirectUri,

    async start(ctx: CommandContext, appUuid: string, providerName: string) {
      const { app } = await apps.installed(ctx.tenant, appUuid);
      const provider = providerOf(app, providerName);
      const state = oauth.generateRandomState();
      const verifier = oauth.generateRandomCodeVerifier();
      const url = new URL(provider.authorizationEndpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', provider.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      if (provider.scopes.length) url.searchParams.set('scope', provider.scopes.join(' '));
      const expiresAt = ctx.now + deps.flowTtlMs;
      await db.query('delete from app_oauth_flows where expires_at < $1', [ctx.now]);
      await db.query(
        'insert into app_oauth_flows (state_hash, tenant, app_uuid, provider, user_uuid, code_verifier, redirect_uri, expires_at) values ($1, $2, $3, $4, $5, $6, $7, $8)',
        [hash(state), ctx.tenant, appUuid, provider.name, ctx.userUuid, box.seal(verifier, flowAad(ctx.tenant, appUuid)), redirectUri, expiresAt],
      );
      return { authorizeUrl: url.toString(), state, expiresAt };
    },

    /** The provider's redirect: claims the flow by its state (once), exchanges the code, stores the tokens sealed. */
    async callback(params: URLSearchParams, now: number, requestId: string) {
      const state = params.get('state') ?? '';
      const [flow] = await db.query<{ tenant: string; app_uuid: string; provider: string; user_uuid: string | null; code_verifier: string; redirect_uri: string }>(
        'delete from app_oauth_flows where state_hash = $1 and expires_at > $2 returning tenant, app_uuid, provider, user_uuid, code_verifier, redirect_uri',
        [hash(state), now],
      );
      if (!flow) throw failed('unknown or expired OAuth state', 'Start the connection again with POST /apps/{appUuid}/installation/oauth/{provider}/start');
      const { app } = await apps.installed(flow.tenant, flow.app_uuid);
      const provider = providerOf(app, flow.provider);
      const as = server(provider);
      const client: oauth.Client = { client_id: provider.clientId };
      let tokens: oauth.TokenEndpointResponse;
      try {
        const checked = oauth.validateAuthResponse(as, client, params, state);
        const verifier = box.open(flow.code_verifier, flowAad(flow.tenant, flow.app_uuid));
        const response = await oauth.authorizationCodeGrantRequest(as, client, await clientAuth(flow.tenant, flow.app_uuid, provider.name), checked, flow.redirect_uri, verifier, options);
        tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { requireIdToken: false });
      } catch (err) {
        if (err instanceof DomainError) throw err;
        // The provider's own words are not shown: they may echo what was sent.
        throw failed(`the provider refused the authorization (${(err as { code?: string }).code ?? 'error'})`, 'Start the connection again; check the app\'s client id and the installation secret oauth.<provider>.clientSecret');
      }
      const connectionId = randomUUID();
      const sealed = box.seal(JSON.stringify({ access_token: tokens.access_token, refresh_token: tokens.refresh_token ?? null, token_type: tokens.token_type }), tokensAad(flow.tenant, flow.app_uuid, connectionId));
      const ctx: CommandContext = { tenant: flow.tenant, userUuid: flow.user_uuid, requestId, now };
      await apps.onInstallation(ctx, flow.app_uuid, {
        type: 'ConnectOAuth',
        connectionId,
        provider: provider.name,
        scope: tokens.scope ?? provider.scopes.join(' '),
        expiresAt: tokens.expires_in ? now + tokens.expires_in * 1000 : null,
        tokens: sealed,
      });
      return { connectionId, provider: provider.name, appUuid: flow.app_uuid };
    },

    async connections(tenant: string, appUuid: string, now: number) {
      await apps.installed(tenant, appUuid);
      return (await connectionsOf(db, tenant, appUuid)).map((c) => ({
        connectionId: c.connection_id,
        provider: c.provider,
        scope: c.scope,
        status: c.expires_at !== null && Number(c.expires_at) <= now ? ('EXPIRED' as const) : ('CONNECTED' as const),
        expiresAt: c.expires_at === null ? null : Number(c.expires_at),
        connectedAt: Number(c.connected_at),
      }));
    },

    /** Revokes at the provider when it has a revocation endpoint (best effort), then forgets the tokens. */
    async revoke(ctx: CommandContext, appUuid: string, providerOrConnectionId: string) {
      const { app } = await apps.installed(ctx.tenant, appUuid);
      const hits = (await connectionsOf(db, ctx.tenant, appUuid)).filter((c) => c.connection_id === providerOrConnectionId || c.provider === providerOrConnectionId);
      let revokedAtProvider = 0;
      for (const c of hits) {
        const provider = (app.oauth_providers ?? []).find((p) => p.name === c.provider);
        if (!provider?.revocationEndpoint) continue;
        try {
          const { access_token, refresh_token } = JSON.parse(box.open(c.tokens, tokensAad(ctx.tenant, appUuid, c.connection_id))) as { access_token: string; refresh_token: string | null };
          const as = server(provider);
          const client = { client_id: provider.clientId };
          const auth = await clientAuth(ctx.tenant, appUuid, provider.name);
          await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, refresh_token ?? access_token, options));
          revokedAtProvider++;
        } catch {
          // Best effort: the tokens are forgotten here whatever the provider said.
        }
      }
      await apps.onInstallation(ctx, appUuid, { type: 'RevokeOAuth', providerOrConnectionId });
      return { revoked: hits.length, revokedAtProvider };
    },
  };
}
export type OAuthService = ReturnType<typeof makeOAuthService>;
