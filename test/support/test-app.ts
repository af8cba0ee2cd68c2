import type { FastifyInstance } from 'fastify';
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
