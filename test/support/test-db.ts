import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { createPgliteDb } from '../../src/db/pglite.db.js';
import { createPostgresDb } from '../../src/db/postgres.db.js';
import type { EventStore } from '../../src/event-store/port.js';
import { createPostgresEventStore } from '../../src/event-store/postgres.store.js';
import { adminUrl, databaseUrlFor } from './pg-urls.js';

export const onPostgres = Boolean(process.env.DATABASE_URL);

/** PostgreSQL (DATABASE_URL set): the URL of a new database cloned from the migrated template. */
export async function newTestDatabaseUrl(): Promise<string> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('newTestDatabaseUrl needs DATABASE_URL');
  const name = `${inject('pgPrefix')}${randomBytes(6).toString('hex')}`;
  const admin = createPostgresDb({ connectionString: adminUrl(url), max: 1 });
  // Two files cloning the template at once can collide (55006): wait and try again.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`create database ${name} template ${inject('pgTemplate')}`);
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt > 50) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  await admin.close();
  return databaseUrlFor(url, name);
}

/**
 * A fresh, migrated database for one test file: a copy of the prepared PGlite folder, or a new
 * PostgreSQL database cloned from the prepared template when DATABASE_URL is set.
 */
export async function openTestDb(): Promise<Db> {
  if (process.env.DATABASE_URL) return createPostgresDb({ connectionString: await newTestDatabaseUrl(), max: 20 });
  const dir = mkdtempSync(join(tmpdir(), 'platform-pglite-'));
  cpSync(inject('pgliteTemplate'), dir, { recursive: true });
  const db = await createPgliteDb(dir);
  return {
    ...db,
    async close() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * For a test file's tests: its own database (`openTestDb`) with a Postgres event store on it,
 * opened before the tests and closed after them. Read `db` and `store` inside tests.
 */
export function useTestStore(): { readonly db: Db; readonly store: EventStore } {
  let db: Db | undefined;
  let store: EventStore | undefined;
  beforeAll(async () => {
    db = await openTestDb();
    store = await createPostgresEventStore({ db });
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });
  return {
    get db() {
      return db!;
    },
    get store() {
      return store!;
    },
  };
}
