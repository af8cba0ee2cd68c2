import { cpSync, existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import { createPostgresDb } from './db/postgres.db.js';
import { migrate } from './db/migrate.js';
import type { EventStore } from './event-store/port.js';
import { createPostgresEventStore } from './event-store/postgres.store.js';
import { projections as allProjections } from '../projections/index.js';
import type { Projection } from '../projections/projection.js';

export interface OpenedPlatform {
  db: Db;
  store: EventStore;
  projections: readonly Projection[];
  close(): Promise<void>;
}

/**
 * A PGlite folder made and migrated by the build (`npm ci` runs it: scripts/build.mjs), beside
 * the built server: dist/pglite-seed. A first start copies it instead of creating a database,
 * which takes PGlite 4-6 s (40 s on a loaded machine). Running from the TypeScript sources
 * there is none, and PGlite creates its folder as before.
 */
const pgliteSeed = fileURLToPath(new URL('../pglite-seed/', import.meta.url));

/** PGlite is loaded only when it is the database: its module alone is ~40 MiB of a server's memory. */
async function openPglite(dataDir: string, step: (line: string) => void): Promise<Db> {
  const fresh = !existsSync(dataDir) || readdirSync(dataDir).length === 0;
  if (fresh && existsSync(pgliteSeed)) {
    step(`new data folder ${dataDir}: copying the database prepared at install`);
    cpSync(pgliteSeed, dataDir, { recursive: true });
  } else {
    step(fresh ? `new data folder ${dataDir}: creating the database (takes a few seconds)` : `opening PGlite in ${dataDir}`);
  }
  const { createPgliteDb } = await import('./db/pglite.db.js');
  return createPgliteDb(dataDir);
}

const migrated = (applied: string[]) => (applied.length === 0 ? 'schema up to date' : `applied ${applied.length} migrations (${applied.at(-1)})`);

/** The composition root: picks the database and the event-store adapter from the config. */
export async function openPlatform(
  config: Config,
  options: { db?: Db; projections?: readonly Projection[]; onStep?: (step: string) => void } = {},
): Promise<OpenedPlatform> {
  const step = options.onStep ?? (() => {});
  if (config.DATABASE_URL && !options.db) {
    // Migrations may build indexes over large tables: they run on a connection of their own with
    // the maintenance time limit, apart from the API's pool and its short one.
    const maintenance = createPostgresDb({ connectionString: config.DATABASE_URL, max: 1, statementTimeoutMs: config.MAINTENANCE_STATEMENT_TIMEOUT_MS });
    try {
      step('migrating PostgreSQL');
      step(migrated(await migrate(maintenance)));
    } finally {
      await maintenance.close();
    }
  }
  const db = options.db ?? (config.DATABASE_URL
    ? createPostgresDb({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_SIZE, statementTimeoutMs: config.STATEMENT_TIMEOUT_MS })
    : await openPglite(resolve(config.DATA_DIR), step));
  if (db.kind === 'pglite' || options.db) {
    step('migrating');
    step(migrated(await migrate(db)));
  }
  const projections = options.projections ?? allProjections;
  let store: EventStore;
  if (config.EVENT_STORE === 'eventstoredb') {
    const { createEventStoreDbStore } = await import('./event-store/eventstoredb.store.js');
    store = await createEventStoreDbStore({ connectionString: config.EVENTSTORE_URL!, db, projections });
  } else {
    store = await createPostgresEventStore({ db, projections });
  }
  return {
    db,
    store,
    projections,
    async close() {
      await store.close();
      await db.close();
    },
  };
}
