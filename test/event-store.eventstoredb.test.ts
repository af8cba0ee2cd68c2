import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import type { EventStore } from '../src/event-store/port.js';
import { eventStoreContract } from './event-store.contract.js';
import { openTestDb } from './support/test-db.js';

/**
 * The contract suite on EventStoreDB / KurrentDB: against EVENTSTORE_URL when set, else in a
 * container through testcontainers when a container runtime answers; otherwise skipped, loudly.
 */
async function findEventStore(): Promise<{ url?: string; stop?: () => Promise<void>; why?: string }> {
  if (process.env.EVENTSTORE_URL) return { url: process.env.EVENTSTORE_URL };
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('eventstore/eventstore:24.10')
      .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_RUN_PROJECTIONS: 'None' })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forLogMessage(/IS LEADER/))
      .withStartupTimeout(90_000)
      .start();
    return {
      url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
      stop: async () => void (await container.stop()),
    };
  } catch (err) {
    return { why: `no EVENTSTORE_URL and no container runtime (${String((err as Error).message ?? err).split('\n')[0]})` };
  }
}

const found = await findEventStore();

if (!found.url) {
  process.stdout.write(`EventStoreDB contract suite SKIPPED: ${found.why}\n`);
  describe('event store contract on EventStoreDB', () => {
    it.skip(`skipped: ${found.why}`, () => {});
  });
} else {
  let db: Db;
  let store: EventStore;
  beforeAll(async () => {
    db = await openTestDb();
    const { createEventStoreDbStore } = await import('../src/event-store/eventstoredb.store.js');
    store = await createEventStoreDbStore({ connectionString: found.url!, db, projections: [] });
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
    await found.stop?.();
  });
  describe('event store contract on EventStoreDB', () => {
    eventStoreContract(() => store);
  });
}
