import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { projections } from '../../projections/index.js';
import type { CommandContext } from '../../src/commands/command-handler.js';
import type { Db } from '../../src/db/db.js';
import type { EventStore } from '../../src/event-store/port.js';
import { createPostgresEventStore } from '../../src/event-store/postgres.store.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { makeRecordsService, recordStateOf } from '../../src/records/records.service.js';
import { recordDecider } from '../../aggregates/record/record.decider.js';
import { recordStream, type RecordEvent } from '../../aggregates/record/record.events.js';
import { getRecord } from '../../read-models/records.queries.js';
import { makeObjectsService } from '../../src/schema/objects.service.js';
import { makePropertiesService } from '../../src/schema/properties.service.js';
import { openTestDb } from '../support/test-db.js';

/**
 * Rebuild law for records: the live read models equal what replaying the log into empty tables
 * gives (ids that only number rows, rid and fid, compared through what they stand for).
 */
let db: Db;
let store: EventStore;
const tenant = '00000000-0000-4000-8000-0000000000d1';
let clock = 1_700_000_000_000;
const ctx = (): CommandContext => ({ tenant, userUuid: null, requestId: `r${clock}`, now: (clock += 1000) });

beforeAll(async () => {
  db = await openTestDb();
  store = await createPostgresEventStore({ db, projections });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const snapshot = async () => ({
  records: await db.query(
    `select tenant, object_uuid, uuid, is_primary, primary_object_uuid, object_name, extends, vals, search::text as search, created_at, updated_at,
            created_by, updated_by, deleted_at, deleted_by, revision from records order by tenant, uuid, object_uuid`,
  ),
  values: await db.query(
    `select r.uuid, r.object_uuid, f.name, v.t, v.tf, v.n from record_values v join records r on r.rid = v.rid join record_fields f on f.fid = v.fid
      order by 1, 2, 3, 4, 5, 6`,
  ),
  counts: await db.query('select tenant, object_uuid, sum(live)::int8 as live, sum(archived)::int8 as archived, sum(changes)::int8 as changes from record_counts group by 1, 2 order by 1, 2'),
  unique: await db.query('select * from record_unique order by tenant, object_uuid, name, value'),
});

type Cmd =
  | { k: 'create'; o: number; title: string | null; n: number | null; tags: string[]; email: number | null }
  | { k: 'update'; r: number; title: string | null; n: number | null; email: number | null }
  | { k: 'archive' | 'restore'; r: number }
  | { k: 'extend' | 'unextend'; r: number };

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('create' as const), o: fc.nat(1), title: fc.option(fc.constantFrom('Ab', 'cd', 'É')), n: fc.option(fc.constantFrom(1, 2.5, -3)), tags: fc.uniqueArray(fc.constantFrom('x', 'y', 'z'), { maxLength: 2 }), email: fc.option(fc.nat(3)) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('update' as const), r: fc.nat(9), title: fc.option(fc.constantFrom('Ab', 'zz', 'ÉÉ')), n: fc.option(fc.constantFrom(1, 7)), email: fc.option(fc.nat(3)) }) },
  fc.record({ k: fc.constantFrom('archive' as const, 'restore' as const), r: fc.nat(9) }),
  fc.record({ k: fc.constantFrom('extend' as const, 'unextend' as const), r: fc.nat(9) }),
);

describe('records rebuild', () => {
  it('live read models equal a rebuild from the log, for random command sequences', async () => {
    const objects = makeObjectsService({ db, store });
    const properties = makePropertiesService({ db, store });
    const records = makeRecordsService({ db, store });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 5, maxLength: 25 }), async (cmds) => {
        run++;
        const names = [`a${run}`, `b${run}`, `x${run}`];
        for (const name of names) {
          const o = await objects.create(ctx(), { name, label: name });
          await properties.create(ctx(), o.object_uuid, { name: 'title', label: 'Title', type: 'string', format: 'text' });
          await properties.create(ctx(), o.object_uuid, { name: 'n', label: 'N', type: 'number', format: 'number' });
          await properties.create(ctx(), o.object_uuid, { name: 'tags', label: 'Tags', type: 'string', format: 'multi-select', options: ['x', 'y', 'z'].map((v) => ({ value: v, label: v })) });
          await properties.create(ctx(), o.object_uuid, { name: 'email', label: 'E-mail', type: 'string', format: 'email', unique: true });
        }
        const made: string[] = [];
        for (const cmd of cmds) {
          const r = made.length ? made[('r' in cmd ? cmd.r : 0) % made.length]! : undefined;
          const email = (e: number | null) => (e === null ? null : `p${e}@x.test`);
          try {
            if (cmd.k === 'create') made.push((await records.create(ctx(), names[cmd.o]!, { properties: { title: cmd.title, n: cmd.n, tags: cmd.tags, email: email(cmd.email) } })).uuid);
            else if (!r) continue;
            else if (cmd.k === 'update') await records.update(ctx(), r, { title: cmd.title, n: cmd.n, email: email(cmd.email) });
            else if (cmd.k === 'archive') await records.archive(ctx(), r, 'archive');
            else if (cmd.k === 'restore') await records.restore(ctx(), r);
            else if (cmd.k === 'extend') await records.extend(ctx(), r, names[2]!);
            else await records.removeExtension(ctx(), r, names[2]!);
          } catch (err) {
            // Refusals (a taken e-mail, a wrong state) are part of the sequence: they append nothing.
            if (!(err instanceof DomainError)) throw err;
          }
        }
        // The write path takes a record's state from its row instead of folding its stream.
        for (const uuid of made) {
          const history = await store.readStream(tenant, recordStream(uuid));
          let folded = recordDecider.initialState();
          for (const e of history) folded = recordDecider.evolve(folded, e as unknown as RecordEvent);
          const row = (await getRecord(db, tenant, uuid))!;
          expect({ state: recordStateOf(uuid, row), revision: Number(row.revision) }).toEqual({ state: folded, revision: history.at(-1)!.revision });
        }
        const live = await snapshot();
        await rebuildReadModels(db, store, projections);
        expect(await snapshot()).toEqual(live);
      }),
      { numRuns: 8 },
    );
  });
});
