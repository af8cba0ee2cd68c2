import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { TraitName } from '../../aggregates/trait/trait.schemas.js';
import { objectsProjection } from '../../projections/objects.projection.js';
import { propertiesProjection } from '../../projections/properties.projection.js';
import { recordLinksProjection } from '../../projections/record-links.projection.js';
import { relationsProjection } from '../../projections/relations.projection.js';
import { traitsProjection } from '../../projections/traits.projection.js';
import type { CommandContext } from '../../src/commands/command-handler.js';
import type { Db } from '../../src/db/db.js';
import type { EventStore } from '../../src/event-store/port.js';
import { createPostgresEventStore } from '../../src/event-store/postgres.store.js';
import { applyProjections } from '../../src/projections/apply.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { makeConnectionsService } from '../../src/schema/connections.service.js';
import { makeObjectsService } from '../../src/schema/objects.service.js';
import { makePropertiesService } from '../../src/schema/properties.service.js';
import { recordsNotStoredYet } from '../../src/schema/record-port.js';
import { makeRelationsService } from '../../src/schema/relations.service.js';
import { makeTraitsService } from '../../src/schema/traits.service.js';
import { openTestDb } from '../support/test-db.js';

const schemaProjections = [objectsProjection, propertiesProjection, relationsProjection, recordLinksProjection, traitsProjection];
const tables = ['rm_objects', 'rm_properties', 'rm_relations', 'rm_record_links', 'rm_traits'];
const tenants = ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000b2'];
const records = ['00000000-0000-4000-8000-000000000c01', '00000000-0000-4000-8000-000000000c02', '00000000-0000-4000-8000-000000000c03'];

let db: Db;
let store: EventStore;
let services: ReturnType<typeof makeServices>;

function makeServices() {
  return {
    objects: makeObjectsService({ db, store }),
    properties: makePropertiesService({ db, store }),
    relations: makeRelationsService({ db, store }),
    connections: makeConnectionsService({ db, store, recordExists: recordsNotStoredYet }),
    traits: makeTraitsService({ db, store }),
  };
}

beforeAll(async () => {
  db = await openTestDb();
  store = await createPostgresEventStore({ db, projections: schemaProjections });
  services = makeServices();
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const snapshot = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await db.query(`select * from ${t} order by 1, 2, 3`)] as const)));

/** Schema commands over small pools, so that they collide: duplicate names, wrong states, cardinality clashes. */
type Cmd =
  | { k: 'object'; name: number; label: string }
  | { k: 'updateObject'; o: number; label: string; group: string | null }
  | { k: 'deleteObject' | 'restoreObject'; o: number }
  | { k: 'property'; o: number; name: number; kind: 'text' | 'select' | 'number' | 'linked'; r: number }
  | { k: 'updateProperty'; p: number; label: string; extraOption: boolean }
  | { k: 'deleteProperty' | 'restoreProperty'; p: number }
  | { k: 'relation'; from: number; to: number; name: number; cardinality: 'ONE_TO_ONE' | 'ONE_TO_MANY' | 'MANY_TO_ONE' | 'MANY_TO_MANY'; bidirectional: boolean }
  | { k: 'deleteRelation' | 'restoreRelation' | 'purgeRelation'; r: number }
  | { k: 'indices'; r: number; index: number }
  | { k: 'connect' | 'disconnect'; r: number; from: number; to: number; note: string | null }
  | { k: 'trait'; o: number; trait: TraitName }
  | { k: 'removeTrait'; o: number; trait: TraitName };

const i = (max: number) => fc.integer({ min: 0, max });
const label = fc.constantFrom('Alpha', 'Beta', 'Gamma');
const cmdArb: fc.Arbitrary<{ tenant: number; cmd: Cmd }> = fc.record({
  tenant: fc.integer({ min: 0, max: 1 }),
  cmd: fc.oneof(
    { weight: 3, arbitrary: fc.record({ k: fc.constant('object' as const), name: i(3), label }) },
    fc.record({ k: fc.constant('updateObject' as const), o: i(3), label, group: fc.constantFrom(null, 'G') }),
    fc.record({ k: fc.constantFrom('deleteObject' as const, 'restoreObject' as const), o: i(3) }),
    { weight: 3, arbitrary: fc.record({ k: fc.constant('property' as const), o: i(3), name: i(2), kind: fc.constantFrom('text' as const, 'select' as const, 'number' as const, 'linked' as const), r: i(3) }) },
    fc.record({ k: fc.constant('updateProperty' as const), p: i(5), label, extraOption: fc.boolean() }),
    fc.record({ k: fc.constantFrom('deleteProperty' as const, 'restoreProperty' as const), p: i(5) }),
    { weight: 3, arbitrary: fc.record({ k: fc.constant('relation' as const), from: i(3), to: i(3), name: i(1), cardinality: fc.constantFrom('ONE_TO_ONE' as const, 'ONE_TO_MANY' as const, 'MANY_TO_ONE' as const, 'MANY_TO_MANY' as const), bidirectional: fc.boolean() }) },
    fc.record({ k: fc.constantFrom('deleteRelation' as const, 'restoreRelation' as const, 'purgeRelation' as const), r: i(3) }),
    fc.record({ k: fc.constant('indices' as const), r: i(3), index: i(5) }),
    { weight: 4, arbitrary: fc.record({ k: fc.constantFrom('connect' as const, 'disconnect' as const), r: i(3), from: i(2), to: i(2), note: fc.constantFrom(null, 'x', 'y') }) },
    fc.record({ k: fc.constant('trait' as const), o: i(3), trait: fc.constantFrom<TraitName>('Flow', 'Table', 'Page', 'User') }),
    fc.record({ k: fc.constant('removeTrait' as const), o: i(3), trait: fc.constantFrom<TraitName>('Flow', 'Table', 'Page', 'User') }),
  ),
});

let run = 0;
let clock = 1_700_000_000_000;

/** Runs one command (false: nothing to run it on yet); the uuids of what it created go into the run's pools. */
async function execute(tenant: string, cmd: Cmd, pools: { objects: string[]; properties: [string, string][]; relations: string[] }): Promise<boolean> {
  const ctx: CommandContext = { tenant, userUuid: null, requestId: `run-${run}`, now: (clock += 1000) };
  const pick = <T>(xs: T[], n: number) => (xs.length ? xs[n % xs.length] : undefined);
  const s = services;
  const target = (() => {
    switch (cmd.k) {
      case 'object': return true;
      case 'updateObject': case 'deleteObject': case 'restoreObject': case 'property': case 'trait': case 'removeTrait': return pick(pools.objects, cmd.o);
      case 'updateProperty': case 'deleteProperty': case 'restoreProperty': return pick(pools.properties, cmd.p);
      case 'relation': return pools.objects.length > 0;
      default: return pick(pools.relations, cmd.r);
    }
  })();
  if (!target) return false;
  switch (cmd.k) {
    case 'object':
      pools.objects.push((await s.objects.create(ctx, { name: `o${run}_${cmd.name}`, label: cmd.label })).object_uuid);
      break;
    case 'updateObject': {
      const o = pick(pools.objects, cmd.o);
      if (o) await s.objects.update(ctx, o, { label: cmd.label, group: cmd.group });
      break;
    }
    case 'deleteObject':
    case 'restoreObject': {
      const o = pick(pools.objects, cmd.o);
      if (o) await (cmd.k === 'deleteObject' ? s.objects.remove(ctx, o) : s.objects.restore(ctx, o));
      break;
    }
    case 'property': {
      const o = pick(pools.objects, cmd.o);
      if (!o) break;
      const name = `p${cmd.name}`;
      const input =
        cmd.kind === 'select'
          ? { name, label: 'S', type: 'string' as const, format: 'select' as const, options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] }
          : cmd.kind === 'number'
            ? { name, label: 'N', type: 'number' as const, format: 'number' as const, min: 0 }
            : cmd.kind === 'linked'
              ? { name, label: 'L', type: 'string' as const, format: 'linked' as const, relationUuid: pick(pools.relations, cmd.r) ?? null }
              : { name, label: 'T', type: 'string' as const, format: 'text' as const, maxLength: 10 };
      pools.properties.push([o, (await s.properties.create(ctx, o, input)).property_uuid]);
      break;
    }
    case 'updateProperty': {
      const p = pick(pools.properties, cmd.p);
      if (p) await s.properties.update(ctx, p[0], p[1], { label: cmd.label, ...(cmd.extraOption ? { options: [{ value: 'a', label: 'A!' }, { value: 'b', label: 'B' }, { value: 'c', label: 'C' }] } : {}) });
      break;
    }
    case 'deleteProperty':
    case 'restoreProperty': {
      const p = pick(pools.properties, cmd.p);
      if (p) await (cmd.k === 'deleteProperty' ? s.properties.remove(ctx, p[0], p[1]) : s.properties.restore(ctx, p[0], p[1]));
      break;
    }
    case 'relation': {
      const [from, to] = [pick(pools.objects, cmd.from), pick(pools.objects, cmd.to)];
      if (!from || !to) break;
      const { relation } = await s.relations.upsert(ctx, from, {
        name: `r${cmd.name}`, toObjectUuid: to, cardinality: cmd.cardinality, direction: cmd.bidirectional ? 'BIDIRECTIONAL' : 'DIRECTED', toName: cmd.bidirectional ? 'back' : null,
        edgeProperties: [{ name: 'note', type: 'string' }],
      });
      if (!pools.relations.includes(relation.relation_uuid)) pools.relations.push(relation.relation_uuid);
      break;
    }
    case 'deleteRelation':
    case 'restoreRelation':
    case 'purgeRelation': {
      const r = pick(pools.relations, cmd.r);
      if (r) await (cmd.k === 'deleteRelation' ? s.relations.remove(ctx, r) : cmd.k === 'restoreRelation' ? s.relations.restore(ctx, r) : s.relations.purge(ctx, r));
      break;
    }
    case 'indices': {
      const r = pick(pools.relations, cmd.r);
      if (r) await s.relations.updateIndices(ctx, { [r]: cmd.index });
      break;
    }
    case 'connect':
    case 'disconnect': {
      const r = pick(pools.relations, cmd.r);
      if (!r) break;
      if (cmd.k === 'connect') await s.connections.connect(ctx, r, records[cmd.from]!, records[cmd.to]!, cmd.note ? { note: cmd.note } : {});
      else await s.connections.disconnect(ctx, r, records[cmd.from]!, records[cmd.to]!);
      break;
    }
    case 'trait': {
      const o = pick(pools.objects, cmd.o);
      if (!o) break;
      const details = { Flow: { stageProperty: 'p1' }, Table: { columns: [{ property: 'name' }, { property: 'p0', width: 100 }] }, Page: { pathPrefix: 'x' }, User: {} }[cmd.trait];
      await s.traits.configure(ctx, o, cmd.trait, details);
      break;
    }
    case 'removeTrait': {
      const o = pick(pools.objects, cmd.o);
      if (o) await s.traits.remove(ctx, o, cmd.trait);
    }
  }
  return true;
}

describe('schema read models', () => {
  it('after any sequence of schema commands, the live read models equal a rebuild from the log', async () => {
    let refused = 0;
    let done = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 5, maxLength: 40, size: 'max' }), async (commands) => {
        run++;
        const pools = tenants.map(() => ({ objects: [] as string[], properties: [] as [string, string][], relations: [] as string[] }));
        const seed = tenants.flatMap((_, tenant) => [0, 1].map((name) => ({ tenant, cmd: { k: 'object' as const, name, label: 'Seed' } })));
        for (const { tenant, cmd } of [...seed, ...commands]) {
          try {
            if (await execute(tenants[tenant]!, cmd, pools[tenant]!)) done++;
          } catch (err) {
            // Refusals are part of the law; anything else (a 500) fails the property.
            if (!(err instanceof DomainError)) throw err;
            refused++;
          }
        }
        const live = await snapshot();
        await rebuildReadModels(db, store, schemaProjections, 13);
        expect(await snapshot()).toEqual(live);
      }),
      { numRuns: 25 },
    );
    // The generator must exercise both paths, or the property says little.
    expect(done).toBeGreaterThan(250);
    expect(refused).toBeGreaterThan(50);
    // 25 runs through the real services: about 30 s on a quiet machine, several times that on a loaded one.
  }, 240_000);

  it('applying the whole log again changes nothing (idempotent projections)', async () => {
    const before = await snapshot();
    expect(before.rm_objects.length).toBeGreaterThan(0);
    expect(before.rm_record_links.length).toBeGreaterThan(0);
    const all = await store.readAll({ maxCount: 1_000_000 });
    await db.transaction((tx) => applyProjections(schemaProjections, all, tx));
    expect(await snapshot()).toEqual(before);
  });
});
