import { describe, expect, it } from 'vitest';
import { migrate } from '../src/db/migrate.js';
import { anEvent } from './support/builders.js';
import { useTestStore } from './support/test-db.js';

const ev = (n: number) => anEvent('Happened', { n }, { tenant: 't1' });

const t = useTestStore();

const indexesOfEvents = async () =>
  (await t.db.query<{ name: string; def: string }>(`select indexname as name, indexdef as def from pg_indexes where tablename = 'events' order by 1`)).map((r) => `${r.name}: ${r.def.replace(/^.* USING /, '')}`);

describe('migration 0010: the events key becomes the global order', () => {
  it('turns a database of the old shape (key on position, a separate global-order index) into the new one, keeping every event', async () => {
    await t.store.append('t1', 's-1', [ev(1), ev(2)], { expectedStreamRevision: 'no_stream' });
    // The shape databases had before 0010.
    await t.db.exec(`alter table events drop constraint events_pkey;
      alter table events add constraint events_pkey primary key (position);
      create index events_global_order on events (transaction_id, position);
      delete from schema_migrations where name = '0010_events_global_order_key.sql';`);
    expect(await indexesOfEvents()).toContain('events_pkey: btree ("position")');

    expect(await migrate(t.db)).toEqual(['0010_events_global_order_key.sql']);
    const after = await indexesOfEvents();
    expect(after).toContain('events_pkey: btree (transaction_id, "position")');
    expect(after.some((i) => i.startsWith('events_global_order'))).toBe(false);
    // Run again on the new shape: nothing to do, nothing broken.
    await t.db.exec(`delete from schema_migrations where name = '0010_events_global_order_key.sql'`);
    expect(await migrate(t.db)).toEqual(['0010_events_global_order_key.sql']);
    expect(await indexesOfEvents()).toEqual(after);

    await t.store.append('t1', 's-1', [ev(3)], { expectedStreamRevision: 1 });
    expect((await t.store.readStream('t1', 's-1')).map((e) => [e.revision, (e.data as { n: number }).n])).toEqual([[0, 1], [1, 2], [2, 3]]);
  });
});
