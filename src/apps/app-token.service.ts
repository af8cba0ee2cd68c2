import { DomainError } from '../../aggregates/kernel/errors.js';
import { installationsByClientId } from '../../read-models/app-tokens.queries.js';
import { openAppToken } from '../auth/app-tokens.js';
import type { Db } from '../db/db.js';
import { clientCredentialsValid } from './credentials.js';

/** The error codes of RFC 6749 5.2 the token endpoint answers. */
export const oauthErrorCodes = ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'] as const;
export type OAuthErrorCode = (typeof oauthErrorCodes)[number];

/** A refusal of the token endpoint: the spec's error body, with the RFC's `error` code carried in `extra.oauthError`. */
export function oauthRefusal(code: OAuthErrorCode, message: string, correctionSuggestion: string) {
  return new DomainError(code === 'invalid_client' ? 'UNAUTHENTICATED' : 'VALIDATION_FAILED', message, [{ message, type: 'VALIDATION', correctionSuggestion }], { oauthError: code });
}

/**
 * The client-credentials grant (RFC 6749 4.4) for apps: the client id and secret of an installation
 * (issued at install and rotate, docs/apps.md) buy an access token for that installation's company,
 * holding the scopes the installation granted (or the asked subset of them).
 */
export function makeAppTokenService(deps: { db: Db; ttlMs: number }) {
  return {
    async issue(input: { clientId: string; clientSecret: string; scope: string | undefined }, now: number) {
      const rows = await installationsByClientId(deps.db, input.clientId);
      const row = rows.find((r) => clientCredentialsValid(r, input.clientId, input.clientSecret, now));
      // One answer for an unknown client id, a wrong secret and an uninstalled app: nothing to probe.
      if (!row) throw oauthRefusal('invalid_client', 'Client authentication failed', 'Send the client_id and client_secret the install or the last rotate answered');
      const granted = row.granted_scopes ?? [];
      let scopes = [...granted].sort();
      if (input.scope !== undefined) {
        const asked = [...new Set(input.scope.split(' ').filter(Boolean))].sort();
        const beyond = asked.filter((s) => !granted.includes(s));
        if (beyond.length) {
          throw oauthRefusal('invalid_scope', `The installation does not grant ${beyond.join(', ')}`, `Ask for some of the granted scopes (${granted.join(' ') || 'none'}), or leave scope out to get them all`);
        }
        scopes = asked;
      }
      const { token } = await openAppToken(deps.db, { tenant: row.tenant, appUuid: row.app_uuid, clientId: input.clientId, scopes, now, ttlMs: deps.ttlMs });
      return { access_token: token, token_type: 'Bearer' as const, expires_in: Math.floor(deps.ttlMs / 1000), scope: scopes.join(' ') };
    },
  };
}
export type AppTokenService = ReturnType<typeof makeAppTokenService>;
