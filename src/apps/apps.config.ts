import { z } from 'zod';

/** Apps (issue 19): the secrets key and the lifetimes of credentials and tokens (docs/apps.md). Spread into src/config.ts. */
export const appsConfigShape = {
  // AES-256-GCM key of installation secrets, OAuth tokens and signing secrets: 32 bytes, base64.
  // Unset outside production, a random key per process is used (secrets do not survive a restart).
  APPS_SECRETS_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes in base64 (openssl rand -base64 32)')
    .optional(),
  APPS_ROTATION_GRACE_MS: z.coerce.number().int().min(0).max(30 * 24 * 3600_000).default(24 * 3600_000),
  APPS_IFRAME_TOKEN_TTL_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  APPS_OAUTH_FLOW_TTL_MS: z.coerce.number().int().min(10_000).max(3600_000).default(600_000),
  // Lifetime of an app's access token from the client-credentials token endpoint (RFC 6749 4.4).
  APPS_TOKEN_TTL_MS: z.coerce.number().int().min(10_000).max(24 * 3600_000).default(3600_000),
  // Largest CMS module package (the tarball, before base64) POST .../cms-modules/package takes.
  APPS_PACKAGE_MAX_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(5 * 1024 * 1024),
};
