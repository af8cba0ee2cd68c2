import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createPgliteDb } from '../../src/db/pglite.db.js';
import { createPostgresDb } from '../../src/db/postgres.db.js';
import { migrate } from '../../src/db/migrate.js';
import { adminUrl, databaseUrlFor } from './pg-urls.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    pgTemplate: string;
    pgPrefix: string;
  }
}

/**
 * Migrates one database once for the whole run: a PGlite folder that each test file copies, and
 * (when DATABASE_URL is set) a PostgreSQL template database that each test file clones.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'platform-pglite-template-'));
  const pglite = await createPgliteDb(dir);
  await migrate(pglite);
  await pglite.close();
  project.provide('pgliteTemplate', dir);

  const url = process.env.DATABASE_URL;
  // Databases of this run carry its own prefix, so runs sharing one server never drop each other's.
  const prefix = `platform_t${process.pid}_`;
  let template = '';
  if (url) {
    template = `${prefix}template`;
    const admin = createPostgresDb({ connectionString: adminUrl(url), max: 1 });
    await dropTestDatabases(admin, prefix);
    await admin.query(`create database ${template}`);
    const db = createPostgresDb({ connectionString: databaseUrlFor(url, template), max: 1 });
    await migrate(db);
    await db.close();
    await admin.close();
  }
  project.provide('pgTemplate', template);
  project.provide('pgPrefix', prefix);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (url) {
      const admin = createPostgresDb({ connectionString: adminUrl(url), max: 1 });
      await dropTestDatabases(admin, prefix);
      await admin.close();
    }
  };
}

async function dropTestDatabases(admin: ReturnType<typeof createPostgresDb>, prefix: string) {
  const rows = await admin.query<{ datname: string }>(`select datname from pg_database where starts_with(datname, $1)`, [prefix]);
  for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
}
