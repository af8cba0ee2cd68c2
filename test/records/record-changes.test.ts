import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChangesSince } from '../../read-models/record-index/index.js';
import { twoTenants, type TestTenant } from '../support/actors.js';
import { onPostgres } from '../support/test-db.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, type TestObject } from './records-fixtures.js';

// The record changes since a snapshot (read-models/record-index/record-changes.queries.ts): what a
// kept match set is brought up to date with (ADR 0002).
let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let deals: TestObject;
let notes: TestObject;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  [a, b] = await twoTenants(t.app);
  deals = await anObjectWith(t.app, a, { name: {} }, 'deal');
  notes = await anObjectWith(t.app, a, { name: {} }, 'note');
  await anObjectWith(t.app, b, { name: {} }, 'deal');
});
afterAll(async () => t.close());

const snapshotNow = async () => (await t.platform.db.query<{ s: string }>('select pg_current_snapshot()::text as s'))[0]!.s;

describe('record changes since a snapshot', () => {
  it("names the tenant's changed records, with their rows in the object only, and the snapshot now", async () => {
    const before = await snapshotNow();
    const mine = [];
    for (const name of ['one', 'two', 'three']) mine.push((await aRecord(t.app, a, 'deal', { name })).uuid);
    const note = (await aRecord(t.app, a, 'note', { name: 'a note' })).uuid;
    const theirs = (await aRecord(t.app, b, 'deal', { name: 'not mine' })).uuid;

    const changes = await recordChangesSince(t.platform.db, a.companyUuid, deals.uuid, before);
    expect(changes.overflow).toBe(false);
    expect([...changes.changed].sort()).toEqual([...mine, note].sort());
    expect(changes.changed).not.toContain(theirs);
    expect(changes.rows.map((r) => [r.uuid, r.properties.name]).sort()).toEqual(mine.map((u, i) => [u, ['one', 'two', 'three'][i]]).sort());
    expect(changes.rows.every((r) => typeof r.createdAt === 'number' && r.deletedAt === null)).toBe(true);

    // From the snapshot it gave, nothing has changed.
    expect(await recordChangesSince(t.platform.db, a.companyUuid, deals.uuid, changes.snapshot)).toMatchObject({ overflow: false, changed: [], rows: [] });
    // Another object of the tenant: the records are named, no row is in it but the note.
    expect((await recordChangesSince(t.platform.db, a.companyUuid, notes.uuid, before)).rows.map((r) => r.uuid)).toEqual([note]);
  });

  it('says it overflowed, and reads nothing more, past its limits of events or changed records', async () => {
    const before = await snapshotNow();
    for (const name of ['x', 'y', 'z']) await aRecord(t.app, a, 'deal', { name });
    const within = await recordChangesSince(t.platform.db, a.companyUuid, deals.uuid, before, undefined, { events: 100, changed: 3 });
    expect(within.overflow).toBe(false);
    expect(within.changed).toHaveLength(3);
    for (const limits of [{ events: 100, changed: 2 }, { events: 3, changed: 100 }]) {
      expect(await recordChangesSince(t.platform.db, a.companyUuid, deals.uuid, before, undefined, limits)).toMatchObject({ overflow: true, changed: [], rows: [] });
    }
  });

  it('with free text, says of each row whether it holds the query, and its rank', async () => {
    const before = await snapshotNow();
    const hit = (await aRecord(t.app, a, 'deal', { name: 'kalomi kalomi' })).uuid;
    const miss = (await aRecord(t.app, a, 'deal', { name: 'suralo' })).uuid;
    const changes = await recordChangesSince(t.platform.db, a.companyUuid, deals.uuid, before, 'kalomi');
    const byUuid = new Map(changes.rows.map((r) => [r.uuid, r]));
    expect(byUuid.get(hit)).toMatchObject({ hit: true });
    expect(byUuid.get(hit)!.rank).toBeGreaterThan(0);
    expect(byUuid.get(miss)).toMatchObject({ hit: false });
  });

  it.skipIf(!onPostgres)('finds a change whose transaction was still open when the snapshot was taken', async () => {
    const uuid = '00000000-0000-4000-8000-00000000abcd';
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let written!: () => void;
    const wrote = new Promise<void>((r) => (written = r));
    const open = t.platform.db.transaction(async (tx) => {
      await tx.query(
        `insert into events (tenant, stream_id, revision, type, version, data, metadata, occurred_at) values ($1, $2, 0, 'Noted', 1, '{}', '{}', 0)`,
        [a.companyUuid, `record-${uuid}`],
      );
      written();
      await held;
    });
    await wrote;
    // A later transaction that commits first: the snapshot's xmax passes the open one, which
    // then stands in its in-progress list.
    await aRecord(t.app, a, 'note', { name: 'committed meanwhile' });
    const during = await snapshotNow();
    const [xip] = await t.platform.db.query<{ n: number }>('select count(*)::int as n from pg_snapshot_xip($1::text::pg_snapshot)', [during]);
    expect(xip!.n).toBeGreaterThan(0);
    release();
    await open;
    const changes = await recordChangesSince(t.platform.db, a.companyUuid, deals.uuid, during);
    expect(changes.changed).toContain(uuid);
  });
});
