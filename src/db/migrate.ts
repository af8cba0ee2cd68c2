import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Db } from './db.js';
import { eventStoreSchema } from '../event-store/postgres.schema.js';

const migrationsDir = fileURLToPath(new URL('../../read-models/migrations/', import.meta.url));

/** Applies the event-store schema and every read-model migration not yet applied, in name order. */
export async function migrate(db: Db): Promise<string[]> {
  await db.exec(`create table if not exists schema_migrations (name text primary key, applied_at bigint not null)`);
  await db.exec(eventStoreSchema);
  const done = new Set((await db.query<{ name: string }>('select name from schema_migrations')).map((r) => r.name));
  const applied: string[] = [];
  for (const file of readdirSync(migrationsDir).filter((f) => f.endsWith('.sql')).sort()) {
    if (done.has(file)) continue;
    const script = readFileSync(join(migrationsDir, file), 'utf8');
    await db.exec(script);
    await db.query('insert into schema_migrations (name, applied_at) values ($1, $2)', [file, Date.now()]);
    applied.push(file);
  }
  return applied;
}
