import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../aggregates/kernel/events.js';
import { recordDecider } from '../../aggregates/record/record.decider.js';
import { recordEventTypes, recordStream, type RecordEvent } from '../../aggregates/record/record.events.js';
import { projections } from '../../projections/index.js';
import { recordsProjection } from '../../projections/records.projection.js';
import { handleCommand, type CommandContext } from '../../src/commands/command-handler.js';
import type { Db } from '../../src/db/db.js';
import type { EventStore } from '../../src/event-store/port.js';
import { createPostgresEventStore } from '../../src/event-store/postgres.store.js';
import { makeRecordsService } from '../../src/records/records.service.js';
import { makeObjectsService } from '../../src/schema/objects.service.js';
import { makePropertiesService } from '../../src/schema/properties.service.js';
import { onPostgres, openTestDb } from '../support/test-db.js';

/**
 * The law of the records projection's three write paths (docs/adr/0004): for every record event,
 * `apply` one event at a time, `applyBatch` of the whole history, and the store's append (where
 * `withAppend` writes creates and updates in the append statement, on PostgreSQL) leave the same
 * rows. Each path replays the same history into a tenant of its own.
 */
let db: Db;
let store: EventStore;
let fusing: EventStore;
const source = '00000000-0000-4000-8000-0000000000e1';
let clock = 1_700_000_000_000;
const ctx = (): CommandContext => ({ tenant: source, userUuid: null, requestId: `r${clock}`, now: (clock += 1000) });
let history: StoredEvent[] = [];

beforeAll(async () => {
  db = await openTestDb();
  store = await createPostgresEventStore({ db, projections });
  // Only the records projection: its fused writes take the events no other projection handles.
  fusing = await createPostgresEventStore({ db, projections: [recordsProjection] });
  const objects = makeObjectsService({ db, store });
  const properties = makePropertiesService({ db, store });
  const records = makeRecordsService({ db, store });
  for (const name of ['deal', 'extra']) {
    const o = await objects.create(ctx(), { name, label: name });
    await properties.create(ctx(), o.object_uuid, { name: 'title', label: 'Title', type: 'string', format: 'text' });
    await properties.create(ctx(), o.object_uuid, { name: 'n', label: 'N', type: 'number', format: 'number' });
    await properties.create(ctx(), o.object_uuid, { name: 'email', label: 'E-mail', type: 'string', format: 'email', unique: true });
  }
  const a = await records.create(ctx(), 'deal', { properties: { title: 'Ab', n: 1, email: 'a@x.test' } });
  const b = await records.create(ctx(), 'deal', { properties: { title: 'É', n: 2.5 }, extends: ['extra'] });
  await records.update(ctx(), a.uuid, { title: 'zz', n: null, email: 'c@x.test' });
  await records.archive(ctx(), a.uuid, 'archive');
  await records.update(ctx(), b.uuid, { email: 'a@x.test' });
  await records.restore(ctx(), a.uuid);
  await records.extend(ctx(), a.uuid, 'extra');
  await records.update(ctx(), a.uuid, { n: 7 });
  await records.removeExtension(ctx(), b.uuid, 'extra');
  // A user link and its end (spec 1.6; the decider checks no trait: the service does).
  const linked = '00000000-0000-4000-8000-0000000000f1';
  for (const command of [{ type: 'LinkUser', userUuid: linked }, { type: 'UnlinkUser' }, { type: 'LinkUser', userUuid: linked }] as const) {
    await handleCommand({ store, decider: recordDecider, streamId: recordStream(b.uuid), command, context: ctx() });
  }
  // The records' streams in log order (readAll waits for every older transaction of the server).
  const streams = await Promise.all([a, b].map((r) => store.readStream(source, recordStream(r.uuid))));
  history = streams.flat().sort((x, y) => x.position - y.position);
});
afterAll(async () => {
  await fusing.close();
  await store.close();
  await db.close();
});

/** The history up to and including the first event of `type`, moved to `tenant`. */
function historyTo(type: string, tenant: string): StoredEvent[] {
  const end = history.findIndex((e) => e.type === type);
  return history.slice(0, end + 1).map((e) => ({ ...e, tenant, metadata: { ...e.metadata, tenant } }));
}

/** A new tenant with the source's property definitions (the projection reads which are unique). */
async function tenantLikeSource(n: number): Promise<string> {
  const tenant = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  await db.query(
    `insert into rm_properties select (jsonb_populate_record(null::rm_properties, to_jsonb(p) || jsonb_build_object('tenant', $2::text))).*
       from rm_properties p where p.tenant = $1`,
    [source, tenant],
  );
  return tenant;
}

/** The records projection's rows of one tenant, without it (row ids compared through what they stand for). */
const rowsOf = async (tenant: string) => ({
  records: await db.query(
    `select object_uuid, uuid, is_primary, primary_object_uuid, object_name, extends, vals, search::text as search, created_at, updated_at,
            created_by, updated_by, deleted_at, deleted_by, user_uuid, revision from records where tenant = $1 order by uuid, object_uuid`,
    [tenant],
  ),
  values: await db.query(
    `select r.uuid, r.object_uuid, f.name, v.t, v.tf, v.n from record_values v join records r on r.rid = v.rid join record_fields f on f.fid = v.fid
      where r.tenant = $1 order by 1, 2, 3, 4, 5, 6`,
    [tenant],
  ),
  counts: await db.query(
    'select object_uuid, sum(live)::int8 as live, sum(archived)::int8 as archived, sum(changes)::int8 as changes from record_counts where tenant = $1 group by 1 order by 1',
    [tenant],
  ),
  unique: await db.query('select object_uuid, name, value, record_uuid from record_unique where tenant = $1 order by object_uuid, name, value', [tenant]),
});

const paths = {
  async apply(events: StoredEvent[]) {
    for (const e of events) await db.transaction((tx) => recordsProjection.apply(e, tx));
  },
  async applyBatch(events: StoredEvent[]) {
    await db.transaction((tx) => recordsProjection.applyBatch!(events, tx));
  },
  /** Through the store, one append per event with the writer's state after it, as handleCommand appends. */
  async withAppend(events: StoredEvent[]) {
    const states = new Map<string, ReturnType<typeof recordDecider.initialState>>();
    for (const e of events) {
      const state = recordDecider.evolve(states.get(e.streamId) ?? recordDecider.initialState(), e as unknown as RecordEvent);
      states.set(e.streamId, state);
      const { type, version, data, metadata } = e;
      await fusing.append(e.tenant, e.streamId, [{ type, version, data, metadata }], { expectedStreamRevision: e.revision === 0 ? 'no_stream' : e.revision - 1, stateAfter: state });
    }
  },
};

let tenants = 0;

describe(`the records projection's write paths (withAppend ${onPostgres ? 'fused' : 'in a transaction: PGlite has no fused writes'})`, () => {
  it.each(recordEventTypes)('leave the same rows after %s', async (type) => {
    expect(history.some((e) => e.type === type)).toBe(true);
    const rows: Record<string, unknown> = {};
    for (const [name, write] of Object.entries(paths)) {
      const tenant = await tenantLikeSource(++tenants);
      await write(historyTo(type, tenant));
      rows[name] = await rowsOf(tenant);
    }
    expect((rows.apply as Awaited<ReturnType<typeof rowsOf>>).records.length).toBeGreaterThan(0);
    expect(rows.applyBatch).toEqual(rows.apply);
    expect(rows.withAppend).toEqual(rows.apply);
  });
});
