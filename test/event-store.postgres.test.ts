import { afterAll, beforeAll, describe } from 'vitest';
import type { Db } from '../src/db/db.js';
import type { EventStore } from '../src/event-store/port.js';
import { createPostgresEventStore } from '../src/event-store/postgres.store.js';
import { eventStoreContract } from './event-store.contract.js';
import { onPostgres, openTestDb } from './support/test-db.js';

let db: Db;
let store: EventStore;

beforeAll(async () => {
  db = await openTestDb();
  store = await createPostgresEventStore({ db });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

describe(`event store contract on ${onPostgres ? 'PostgreSQL' : 'PGlite'}`, () => {
  eventStoreContract(() => store);
});
