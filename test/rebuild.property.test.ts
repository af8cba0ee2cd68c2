import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DomainError } from '../aggregates/kernel/errors.js';
import type { Db } from '../src/db/db.js';
import { handleCommand } from '../src/commands/command-handler.js';
import type { EventStore } from '../src/event-store/port.js';
import { createPostgresEventStore } from '../src/event-store/postgres.store.js';
import { rebuildReadModels } from '../src/projections/rebuild.js';
import { tallyDecider, tallyProjection, tallyTableSql, type TallyCommand } from './support/tally.fixture.js';
import { openTestDb } from './support/test-db.js';

let db: Db;
let store: EventStore;
beforeAll(async () => {
  db = await openTestDb();
  await db.exec(tallyTableSql);
  store = await createPostgresEventStore({ db, projections: [tallyProjection] });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const snapshot = () => db.query('select * from test_tallies order by tenant, id');

const commandArb: fc.Arbitrary<{ tenant: string; id: number; command: TallyCommand }> = fc.record({
  tenant: fc.constantFrom('company-a', 'company-b'),
  id: fc.integer({ min: 0, max: 3 }),
  command: fc.oneof(
    fc.record({ kind: fc.constant('open' as const), name: fc.string({ maxLength: 8 }) }),
    fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: -100, max: 100 }) }),
    fc.record({ kind: fc.constant('rename' as const), name: fc.string({ maxLength: 8 }) }),
    fc.record({ kind: fc.constant('close' as const) }),
  ),
});

let run = 0;

describe('rebuild', () => {
  it('for any command sequence, replaying the log gives the live read models row for row', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 25 }), async (commands) => {
        run++;
        for (const { tenant, id, command } of commands) {
          try {
            await handleCommand({
              store,
              decider: tallyDecider,
              streamId: `tally-${run}-${id}`,
              command,
              context: { tenant, userUuid: null, requestId: `r-${run}`, now: 1_700_000_000_000 },
            });
          } catch (err) {
            if (!(err instanceof DomainError)) throw err;
          }
        }
        const live = await snapshot();
        await rebuildReadModels(db, store, [tallyProjection], 7);
        expect(await snapshot()).toEqual(live);
      }),
      { numRuns: 30 },
    );
  });

  it('applying an event twice changes nothing (idempotent projections)', async () => {
    const { events } = await handleCommand({
      store,
      decider: tallyDecider,
      streamId: 'tally-twice',
      command: { kind: 'open', name: 't' },
      context: { tenant: 'company-a', userUuid: null, requestId: 'r', now: 1 },
    });
    const added = await handleCommand({
      store,
      decider: tallyDecider,
      streamId: 'tally-twice',
      command: { kind: 'add', n: 5 },
      context: { tenant: 'company-a', userUuid: null, requestId: 'r', now: 2 },
    });
    await db.transaction(async (tx) => {
      for (const e of [...events, ...added.events]) await tallyProjection.apply(e, tx);
    });
    const [row] = await db.query<{ total: number }>(`select total from test_tallies where id = 'tally-twice'`);
    expect(row!.total).toBe(5);
  });
});
