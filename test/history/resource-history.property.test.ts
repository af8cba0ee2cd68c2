import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTenant } from '../support/actors.js';
import type { TestApp } from '../support/test-app.js';
import { call, data } from '../schema/schema-fixtures.js';
import { signUpWithCompany, startHistoryApp, ticketObject } from './history-fixtures.js';

/**
 * The law of asOf: for any sequence of writes, `GET <resource>?asOf=<revision>` answers what the
 * GET answered right after the event of that revision (and, while the resource was deleted, the
 * same with deletedAt set: the GET itself is a 404 then); `asOf=<time>` answers the newest
 * revision at or before that time.
 */

let t: TestApp & { done(): Promise<void> };
let admin: TestTenant;
let ticket: { uuid: string; name: string };

beforeAll(async () => {
  t = await startHistoryApp();
  admin = await signUpWithCompany(t.app);
  ticket = await ticketObject(t, admin);
});
afterAll(async () => t.done());

type Op = { kind: 'rename'; name: string } | { kind: 'filter'; value: string } | { kind: 'delete' } | { kind: 'restore' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('rename' as const), name: fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,10}[A-Za-z]$/) }),
  fc.record({ kind: fc.constant('filter' as const), value: fc.constantFrom('open', 'done', 'later') }),
  fc.constant({ kind: 'delete' as const }),
  fc.constant({ kind: 'restore' as const }),
);

/** How each kind is written: the deletes and restores only where they are allowed (others are skipped). */
const kinds = {
  'saved filters': {
    base: '/api/v2/filters',
    create: () => ({ name: 'start', objectName: ticket.name, filters: [] }),
    change: (o: Op) => (o.kind === 'rename' ? { name: o.name } : { filters: [{ key: 'status', operator: 'equals', value: (o as { value: string }).value }] }),
    remove: 'DELETE' as const,
    restore: (uuid: string) => ['PATCH', `/api/v2/filters/${uuid}`] as const,
  },
  views: {
    base: '/api/v2/views',
    create: () => ({ name: 'start', objectUuid: ticket.uuid, columns: [{ key: 'title' }] }),
    change: (o: Op) => (o.kind === 'rename' ? { name: o.name } : { filters: [{ key: 'status', operator: 'equals', value: (o as { value: string }).value }] }),
    remove: 'DELETE' as const,
    restore: (uuid: string) => ['POST', `/api/v2/views/${uuid}/restore`] as const,
  },
};

describe.each(Object.entries(kinds))('asOf law: %s', (_name, kind) => {
  it('asOf at each revision equals the GET captured right after its event; a time answers the newest revision at or before it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        const created = await data(t.app, admin, 'POST', kind.base, kind.create());
        const url = `${kind.base}/${created.uuid}`;
        const answers = new Map<number, unknown>([[0, await data(t.app, admin, 'GET', url)]]);
        const deletedAt = new Set<number>();
        let deleted = false;
        for (const o of ops) {
          if (o.kind === 'delete' && !deleted) {
            await data(t.app, admin, 'DELETE', url);
            deleted = true;
          } else if (o.kind === 'restore' && deleted) {
            const [method, path] = kind.restore(created.uuid);
            await data(t.app, admin, method, path);
            deleted = false;
          } else if ((o.kind === 'rename' || o.kind === 'filter') && !deleted) {
            await data(t.app, admin, 'PUT', url, kind.change(o));
          } else continue;
          const [newest] = (await data(t.app, admin, 'GET', `${url}/history?limit=1`)) as { revision: number }[];
          if (deleted) deletedAt.add(newest!.revision);
          else answers.set(newest!.revision, await data(t.app, admin, 'GET', url));
        }
        const history = ((await data(t.app, admin, 'GET', `${url}/history?limit=100`)) as { revision: number; occurredAt: number }[]).reverse();
        expect(history.map((e) => e.revision)).toEqual(history.map((_, i) => i));
        for (const { revision, occurredAt } of history) {
          const then = (await data(t.app, admin, 'GET', `${url}?asOf=${revision}`)) as Record<string, unknown>;
          expect(then.revision).toBe(revision);
          if (deletedAt.has(revision)) expect(then.deletedAt).toBe(occurredAt);
          else expect(then).toEqual(answers.get(revision));
          // By time: the newest revision at or before it (events of the same millisecond: the last of them).
          const newest = Math.max(...history.filter((e) => e.occurredAt <= occurredAt).map((e) => e.revision));
          const byTime = (await call(t.app, admin, 'GET', `${url}?asOf=${new Date(occurredAt).toISOString()}`)).body.data as Record<string, unknown>;
          expect(byTime.revision).toBe(newest);
          if (answers.has(newest)) expect(byTime).toEqual(answers.get(newest));
        }
      }),
      { numRuns: 12 },
    );
  });
});
