import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { signUpWithCompany, type TestTenant } from './actors.js';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openPlatform, type OpenedPlatform } from '../../src/platform.js';
import { openTestDb } from './test-db.js';

export interface TestApp {
  app: FastifyInstance;
  platform: OpenedPlatform;
  config: Config;
  close(): Promise<void>;
}

/** The real app on a fresh test database, driven through `app.inject` (or listen for real HTTP). */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', ...env });
  const db = await openTestDb();
  const platform = await openPlatform(config, { db });
  const app = await buildApp({ config, db: platform.db, store: platform.store });
  await app.ready();
  return {
    app,
    platform,
    config,
    async close() {
      await app.close();
      await platform.close();
    },
  };
}

/**
 * For a test file's tests: the app on a fresh test database (`startTestApp` with a cheap password
 * hash) and an admin signed up with a company, made before the tests and closed after them.
 */
export function useAppWithAdmin(env: Record<string, string> = {}): { readonly t: TestApp; readonly admin: TestTenant } {
  let t: TestApp | undefined;
  let admin: TestTenant | undefined;
  beforeAll(async () => {
    t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', ...env });
    admin = await signUpWithCompany(t.app);
  });
  afterAll(async () => t?.close());
  return {
    get t() {
      return t!;
    },
    get admin() {
      return admin!;
    },
  };
}
