import { randomBytes } from 'node:crypto';

/**
 * What a benchmark's server process runs with to start as in production: production refuses to
 * start without the apps' secrets key (docs/apps.md), so each run makes one of its own.
 */
export const productionEnv = { NODE_ENV: 'production', APPS_SECRETS_KEY: randomBytes(32).toString('base64') } as const;
