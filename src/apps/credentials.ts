import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256 } from '../auth/sha256.js';
import type { InstallationCredentials } from '../../aggregates/app/installation.events.js';
import type { InstallationRow } from '../../read-models/apps.queries.js';
import type { SecretBox } from './secret-box.js';

const signingAad = (tenant: string, appUuid: string) => `${tenant}:${appUuid}:signing`;

/** Credentials in clear: shown once, in the answer of install and rotate. */
export interface IssuedCredentials {
  signingSecret: string;
  clientId: string;
  clientSecret: string;
}

/** New credentials: in clear for the answer, sealed and hashed for the event. */
export function issueCredentials(box: SecretBox, tenant: string, appUuid: string): { clear: IssuedCredentials; stored: InstallationCredentials } {
  const clear = { signingSecret: `whsec_${randomBytes(32).toString('base64')}`, clientId: `app_${randomBytes(12).toString('hex')}`, clientSecret: randomBytes(32).toString('base64url') };
  return { clear, stored: { signingSecret: box.seal(clear.signingSecret, signingAad(tenant, appUuid)), clientId: clear.clientId, clientSecretHash: sha256(clear.clientSecret) } };
}

/** The signing secrets valid now: the current one, and the previous one during its grace period. */
export function signingSecrets(box: SecretBox, row: InstallationRow, now: number): string[] {
  const aad = signingAad(row.tenant, row.app_uuid);
  const current = box.open(row.credentials.signingSecret, aad);
  const previous = row.previous_credentials && row.previous_valid_until !== null && now < Number(row.previous_valid_until) ? [box.open(row.previous_credentials.signingSecret, aad)] : [];
  return [current, ...previous];
}

/** Whether client credentials are those of the installation (or its previous ones, within the grace period). */
export function clientCredentialsValid(row: InstallationRow, clientId: string, clientSecret: string, now: number): boolean {
  const matches = (c: InstallationCredentials) => c.clientId === clientId && timingSafeEqual(Buffer.from(c.clientSecretHash), Buffer.from(sha256(clientSecret)));
  if (matches(row.credentials)) return true;
  return !!row.previous_credentials && row.previous_valid_until !== null && now < Number(row.previous_valid_until) && matches(row.previous_credentials);
}
