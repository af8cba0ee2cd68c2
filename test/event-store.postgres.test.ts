import { describe } from 'vitest';
import { eventStoreContract } from './event-store.contract.js';
import { onPostgres, useTestStore } from './support/test-db.js';

const t = useTestStore();

describe(`event store contract on ${onPostgres ? 'PostgreSQL' : 'PGlite'}`, () => {
  eventStoreContract(() => t.store);
});
