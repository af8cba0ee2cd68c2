import { z } from 'zod';

const uuid = z.string().uuid();
const value = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
/** A settings change: a value sets the field, null removes it. */
const settingsChange = z.record(z.string(), value.nullable());

/**
 * The credentials an installation holds: the webhook signing secret (AES-256-GCM ciphertext, the
 * platform signs with it) and the client credentials (the secret as a SHA-256 hash: only the app
 * knows it). Never in clear in an event.
 */
export const credentialsSchema = z.object({ signingSecret: z.string(), clientId: z.string(), clientSecretHash: z.string() });
export type InstallationCredentials = z.infer<typeof credentialsSchema>;

export const appInstalled = z.object({
  type: z.literal('AppInstalled'),
  version: z.literal(1),
  data: z.object({ appUuid: uuid, appTenant: z.string(), settings: z.record(z.string(), value), credentials: credentialsSchema }),
});
export const appUninstalled = z.object({ type: z.literal('AppUninstalled'), version: z.literal(1), data: z.object({ appUuid: uuid, keepData: z.boolean(), reason: z.string() }) });
export const appCredentialsRotated = z.object({
  type: z.literal('AppCredentialsRotated'),
  version: z.literal(1),
  data: z.object({ credentials: credentialsSchema, previousValidUntil: z.number().int() }),
});
export const installationStateChanged = z.object({
  type: z.literal('InstallationStateChanged'),
  version: z.literal(1),
  data: z.object({ set: z.record(z.string(), z.unknown()), removed: z.array(z.string()) }),
});
export const installationSettingsChanged = z.object({ type: z.literal('InstallationSettingsChanged'), version: z.literal(1), data: z.object({ changes: settingsChange }) });
export const installationUserSettingsChanged = z.object({
  type: z.literal('InstallationUserSettingsChanged'),
  version: z.literal(1),
  data: z.object({ userUuid: uuid, changes: settingsChange }),
});
/** `ciphertext`: AES-256-GCM, never the value in clear. */
export const installationSecretSet = z.object({ type: z.literal('InstallationSecretSet'), version: z.literal(1), data: z.object({ name: z.string(), ciphertext: z.string() }) });
export const installationSecretDeleted = z.object({ type: z.literal('InstallationSecretDeleted'), version: z.literal(1), data: z.object({ name: z.string() }) });
export const installationOAuthConnected = z.object({
  type: z.literal('InstallationOAuthConnected'),
  version: z.literal(1),
  data: z.object({ connectionId: uuid, provider: z.string(), scope: z.string(), expiresAt: z.number().int().nullable(), tokens: z.string() }),
});
export const installationOAuthRevoked = z.object({ type: z.literal('InstallationOAuthRevoked'), version: z.literal(1), data: z.object({ connectionId: uuid, provider: z.string() }) });

/** The scopes an installation grants the app (its access tokens hold at most these): the app's requested scopes at install. */
export const installationScopesGranted = z.object({ type: z.literal('InstallationScopesGranted'), version: z.literal(1), data: z.object({ scopes: z.array(z.string()) }) });

export const installationEventSchema = z.discriminatedUnion('type', [
  appInstalled,
  appUninstalled,
  appCredentialsRotated,
  installationStateChanged,
  installationSettingsChanged,
  installationUserSettingsChanged,
  installationSecretSet,
  installationSecretDeleted,
  installationOAuthConnected,
  installationOAuthRevoked,
  installationScopesGranted,
]);
export type InstallationEvent = z.infer<typeof installationEventSchema>;
export const installationEventTypes = installationEventSchema.options.map((o) => o.shape.type.value);

/** One installation per app and company: the stream lives in the installing company's tenant. */
export const INSTALLATION_STREAM_PREFIX = 'installation-';
export const installationStream = (appUuid: string) => `${INSTALLATION_STREAM_PREFIX}${appUuid}`;
/** The app uuid an installation stream is named by (the inverse of `installationStream`). */
export const appUuidOfInstallationStream = (streamId: string) => streamId.slice(INSTALLATION_STREAM_PREFIX.length);
