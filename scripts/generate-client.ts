// `npm run client:generate`: builds the app on a throwaway in-memory PGlite, reads its OpenAPI
// document and writes client/api.generated.ts (docs/client.md).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createPgliteDb } from '../src/db/pglite.db.js';
import { openPlatform } from '../src/platform.js';
import { typesOf } from '../client/generate.js';

const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const platform = await openPlatform(config, { db: await createPgliteDb() });
const app = await buildApp({ config, db: platform.db, store: platform.store });
await app.ready();
const out = join(import.meta.dirname, '..', 'client', 'api.generated.ts');
writeFileSync(out, await typesOf(app.swagger()));
await app.close();
await platform.close();
process.stdout.write(`wrote ${out}\n`);
