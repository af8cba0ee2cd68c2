import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { recordIndexRequestSchema } from '../../aggregates/record-filter/filter.schema.js';
import { indexRecords } from '../../read-models/record-index/index.js';
import { catalogOf } from '../../src/records/records.reads.js';
import { loadRecordObject } from '../../read-models/records.queries.js';
import { twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, call, type TestObject } from './records-fixtures.js';

// Filtered index results are kept per process: the in-process index of an object's columns
// (read-models/record-index/object-store.ts), and match sets brought up to date from the event log or results
// keyed by the object's change count (read-models/record-index/index-cache.ts). Every record write must show in
// the next answer. The suite runs twice: with the in-process index (index-cache.store.http.test.ts)
// and without it (index-cache.match-sets.http.test.ts), so that match sets answer.
let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let objA: TestObject;

const options = ['open', 'closed'].map((v) => ({ value: v, label: v }));
const request = {
  filters: [
    { key: 'title', operator: 'contains', value: 'run' },
    { key: 'status', operator: 'equals', value: 'open' },
  ],
  sort: [{ key: 'title', direction: 'asc' }],
  limit: 3,
};

/** Registers the suite on an app started with `env`. */
export function indexCacheSuite(title: string, env: Record<string, string>) {
  beforeAll(async () => {
    t = await startTestApp(env);
    [a, b] = await twoTenants(t.app);
    objA = await anObjectWith(t.app, a, { title: {}, status: { format: 'select', options } }, 'ticket');
    await anObjectWith(t.app, b, { title: {}, status: { format: 'select', options } }, 'ticket');
  });
  afterAll(async () => t.close());

  const ask = async (who: TestTenant, page = 0, body: Record<string, unknown> = request) => {
    const res = await call(t.app, who, 'POST', '/api/v2/ticket/index', { ...body, page });
    expect(res.status).toBe(200);
    return { total: res.body.total as number, uuids: res.body.data.map((r: { uuid: string }) => r.uuid) as string[] };
  };

  /** The same request read from the database without the cache. */
  async function uncached(who: TestTenant, page = 0, body: Record<string, unknown> = request) {
    const object = (await loadRecordObject(t.platform.db, who.companyUuid, 'ticket'))!;
    const compiled = compileIndexRequest({ properties: catalogOf([object]) }, recordIndexRequestSchema.parse({ ...body, page }));
    const { total, uuids } = await indexRecords(t.platform.db, { tenant: who.companyUuid, objectUuid: object.objectUuid }, compiled);
    return { total, uuids };
  }

  async function expectFresh(who: TestTenant) {
    for (const page of [0, 1]) {
      const want = await uncached(who, page);
      expect(await ask(who, page)).toEqual(want);
      expect(await ask(who, page)).toEqual(want); // asked again: from the cache, still exact
    }
  }

  describe(title, () => {
    it('shows every kind of record write in the next answer', async () => {
      await expectFresh(a);
      const r1 = (await aRecord(t.app, a, 'ticket', { title: 'rune one', status: 'open' })).uuid;
      await expectFresh(a);
      const r2 = (await aRecord(t.app, a, 'ticket', { title: 'brunch', status: 'closed' })).uuid;
      await aRecord(t.app, a, 'ticket', { title: 'prune', status: 'open' });
      await aRecord(t.app, a, 'ticket', { title: 'truncate', status: 'open' });
      await aRecord(t.app, a, 'ticket', { title: 'rung', status: 'open' });
      await expectFresh(a);
      expect((await ask(a)).total).toBe(4);

      // An update that makes a record match, one that makes it stop matching.
      expect((await call(t.app, a, 'PUT', `/api/v2/ticket/${r2}`, { properties: { status: 'open' } })).status).toBe(200);
      await expectFresh(a);
      expect((await ask(a)).total).toBe(5);
      expect((await call(t.app, a, 'PUT', `/api/v2/ticket/${r1}`, { properties: { title: 'one' } })).status).toBe(200);
      await expectFresh(a);
      expect((await ask(a)).total).toBe(4);

      // Archive and restore.
      expect((await call(t.app, a, 'DELETE', `/api/v2/ticket/${r2}`)).status).toBe(200);
      await expectFresh(a);
      expect((await ask(a)).uuids).not.toContain(r2);
      expect((await call(t.app, a, 'POST', `/api/v2/ticket/${r2}/restore`)).status).toBe(200);
      await expectFresh(a);
      expect((await ask(a)).uuids).toContain(r2);
    });

    it('keeps each company’s answer to the same request apart', async () => {
      const mine = (await aRecord(t.app, b, 'ticket', { title: 'runway', status: 'open' })).uuid;
      const answerA = await ask(a);
      const answerB = await ask(b);
      expect(answerB).toEqual({ total: 1, uuids: [mine] });
      expect(answerA.uuids).not.toContain(mine);
      expect(await ask(a)).toEqual(answerA);
      // Kept pages asked together: each company still gets its own.
      const together = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i % 2 === 0 ? a : b, 1 + (i % 4 < 2 ? 0 : 1))));
      const wanted = await Promise.all(Array.from({ length: 12 }, (_, i) => uncached(i % 2 === 0 ? a : b, 1 + (i % 4 < 2 ? 0 : 1))));
      expect(together).toEqual(wanted);
    });

    it('brings a kept answer up to date from the events since, reading only the records they name', async () => {
      const before = await ask(a);
      const tampered = before.uuids[0]!;
      // Behind the projection's back (no event): the kept answer stands, which is what shows it is
      // kept; and it still stands after another record's write, whose event names only that record.
      await t.platform.db.query(`update records set vals = vals || '{"status": "closed"}' where tenant = $1 and object_uuid = $2 and uuid = $3`, [a.companyUuid, objA.uuid, tampered]);
      expect(await ask(a)).toEqual(before);
      const runner = (await aRecord(t.app, a, 'ticket', { title: 'a runner', status: 'open' })).uuid;
      const after = await ask(a);
      expect(after.total).toBe(before.total + 1);
      expect(after.uuids).toContain(tampered);
      expect(after.uuids).toContain(runner); // "a runner" sorts first by title
      // An event of the tampered record reads its row again: it no longer matches.
      expect((await call(t.app, a, 'PUT', `/api/v2/ticket/${tampered}`, { properties: { title: 'rune, renamed' } })).status).toBe(200);
      expect(await ask(a)).toEqual(await uncached(a));
      expect((await ask(a)).uuids).not.toContain(tampered);
      expect((await ask(a)).total).toBe(before.total);
    });

    it('stays exact through random writes between requests (a kept answer against the uncached SQL)', async () => {
      const titles = ['run', 'rune', 'brunt', 'ruin', 'Runner', 'prune'];
      const mine: string[] = [];
      for (let i = 0; i < 6; i++) mine.push((await aRecord(t.app, a, 'ticket', { title: `${titles[i]} ${i}`, status: i % 2 ? 'open' : 'closed' })).uuid);
      // A fixed pseudo-random walk: creates, updates in and out of the filter, archives, restores.
      let x = 7;
      const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
      for (let step = 0; step < 30; step++) {
        const target = mine[next(mine.length)]!;
        switch (next(5)) {
          case 0:
            mine.push((await aRecord(t.app, a, 'ticket', { title: `${titles[next(6)]} ${step}`, status: next(2) ? 'open' : 'closed' })).uuid);
            break;
          case 1:
            await call(t.app, a, 'PUT', `/api/v2/ticket/${target}`, { properties: { status: next(2) ? 'open' : 'closed' } });
            break;
          case 2:
            await call(t.app, a, 'PUT', `/api/v2/ticket/${target}`, { properties: { title: `${next(2) ? 'xx' : titles[next(6)]} ${step}` } });
            break;
          case 3:
            await call(t.app, a, 'DELETE', `/api/v2/ticket/${target}`);
            break;
          default:
            await call(t.app, a, 'POST', `/api/v2/ticket/${target}/restore`);
        }
        const page = next(3);
        expect(await ask(a, page)).toEqual(await uncached(a, page));
      }
    });

    it('converges on the exact answer when writes race the requests that refresh it', async () => {
      const racers = await Promise.all(Array.from({ length: 8 }, (_, i) => aRecord(t.app, a, 'ticket', { title: `race run ${i}`, status: 'open' })));
      await ask(a);
      let writing = true;
      const readers = Array.from({ length: 4 }, async (_, r) => {
        let asked = 0;
        while (writing || asked === 0) {
          const res = await call(t.app, a, 'POST', '/api/v2/ticket/index', { ...request, page: (asked + r) % 2 });
          expect(res.status).toBe(200);
          asked++;
        }
        return asked;
      });
      await Promise.all(
        racers.map(async ({ uuid }, i) => {
          for (let k = 0; k < 8; k++) {
            if (k % 3 === 2) await aRecord(t.app, a, 'ticket', { title: `racer ${i} run ${k}`, status: k % 2 ? 'open' : 'closed' });
            else await call(t.app, a, 'PUT', `/api/v2/ticket/${uuid}`, { properties: { status: (i + k) % 2 ? 'open' : 'closed' } });
          }
        }),
      );
      writing = false;
      expect(Math.min(...(await Promise.all(readers)))).toBeGreaterThan(0);
      for (const page of [0, 1, 2]) expect(await ask(a, page)).toEqual(await uncached(a, page));
    });

    it('keeps free-text answers exact through writes that change the text, the rank and the filter', async () => {
      const text = { query: 'rune OR runner', filters: [{ key: 'status', operator: 'equals', value: 'open' }], limit: 2 };
      const askText = (page: number) => ask(a, page, text);
      const uncachedText = (page: number) => uncached(a, page, text);
      const made: string[] = [];
      for (const title of ['rune', 'rune rune runner', 'quiet']) made.push((await aRecord(t.app, a, 'ticket', { title, status: 'open' })).uuid);
      expect(await askText(1)).toEqual(await uncachedText(1));
      const writes: [string, Record<string, unknown>][] = [
        [made[2]!, { title: 'runner runner rune' }], // comes in, ranked high
        [made[0]!, { status: 'closed' }], // leaves by the filter
        [made[1]!, { title: 'nothing here' }], // leaves by the text
        [made[0]!, { status: 'open', title: 'rune' }], // comes back
      ];
      for (const [uuid, properties] of writes) {
        expect((await call(t.app, a, 'PUT', `/api/v2/ticket/${uuid}`, { properties })).status).toBe(200);
        for (const page of [0, 1]) expect(await askText(page)).toEqual(await uncachedText(page));
      }
    });
  });
}
