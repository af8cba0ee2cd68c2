import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { anObjectWith, aRecord, call, data, index } from '../records/records-fixtures.js';
import { projections } from '../../projections/index.js';
import { aReadySandbox, inSandbox } from './sandbox-fixtures.js';

let t: TestApp;
let owner: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

/**
 * Everything production holds, as text: the company's events and stream heads, and every read
 * model's rows of the company (tables without a tenant column whole), each table in a fixed order.
 */
async function productionDump(tenant: string): Promise<Record<string, string[]>> {
  const db = t.platform.db;
  const dump: Record<string, string[]> = {};
  const text = async (q: string, p: unknown[] = []) => (await db.query<{ j: string }>(q, p)).map((r) => r.j);
  dump.events = await text(`select to_jsonb(e)::text as j from (select position, transaction_id::text, tenant, stream_id, revision, type, version, data, metadata, occurred_at from events where tenant = $1) e order by 1`, [tenant]);
  dump.streams = await text(`select to_jsonb(s)::text as j from streams s where tenant = $1 order by 1`, [tenant]);
  const tables = [...new Set(projections.flatMap((p) => p.tables))];
  for (const table of tables) {
    const [tenantColumn] = await db.query(`select 1 from information_schema.columns where table_name = $1 and column_name = 'tenant'`, [table]);
    dump[table] = tenantColumn
      ? await text(`select to_jsonb(r)::text as j from "${table}" r where tenant = $1 order by 1`, [tenant])
      : await text(`select to_jsonb(r)::text as j from "${table}" r order by 1`);
  }
  return dump;
}

type Op = { kind: 'create'; title: string; n: number } | { kind: 'update'; pick: number; title: string } | { kind: 'archive'; pick: number } | { kind: 'restore'; pick: number } | { kind: 'object' } | { kind: 'filter'; name: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), title: fc.string({ minLength: 1, maxLength: 20 }), n: fc.integer({ min: -1000, max: 1000 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), title: fc.string({ minLength: 1, maxLength: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('archive' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restore' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('object' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('filter' as const), name: fc.string({ minLength: 1, maxLength: 20 }) }) },
);

describe('production is never touched through a sandbox', () => {
  it('hundreds of random writes in a sandbox leave the company\'s events and read models unchanged, byte for byte', async () => {
    const object = await anObjectWith(t.app, owner, { title: { type: 'string', format: 'text' }, n: { type: 'number', format: 'number' } });
    const seeded: string[] = [];
    for (let i = 0; i < 20; i++) seeded.push((await aRecord(t.app, owner, object.name, { title: `seed ${i}`, n: i })).uuid);
    const sandbox = await aReadySandbox(t.app, owner);
    const dev = inSandbox(owner, sandbox.uuid);
    const before = await productionDump(owner.companyUuid);
    const prodList = JSON.stringify((await index(t.app, owner, object.name, { limit: 100, sort: [{ key: 'n', direction: 'asc' }] })).body);
    let writes = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 120, maxLength: 160 }), async (ops) => {
        const known = [...seeded];
        for (const o of ops) {
          const pick = (i: number) => known[i % known.length]!;
          let res: { status: number; body: Record<string, any> };
          switch (o.kind) {
            case 'create': {
              res = await call(t.app, dev, 'POST', `/api/v2/${object.name}`, { properties: { title: o.title, n: o.n } });
              if (res.status === 201) known.push(res.body.data.uuid as string);
              break;
            }
            case 'update':
              res = await call(t.app, dev, 'PUT', `/api/v2/${object.name}/${pick(o.pick)}`, { properties: { title: o.title } });
              break;
            case 'archive':
              res = await call(t.app, dev, 'DELETE', `/api/v2/${object.name}/${pick(o.pick)}`);
              break;
            case 'restore':
              res = await call(t.app, dev, 'POST', `/api/v2/${object.name}/${pick(o.pick)}/restore`);
              break;
            case 'object':
              res = await call(t.app, dev, 'POST', '/api/v2/objects', { name: `sb_${writes}_${Math.random().toString(36).slice(2, 8)}`, label: 'Sandbox only' });
              break;
            case 'filter':
              res = await call(t.app, dev, 'POST', '/api/v2/filters', { name: o.name, objectName: object.name, filters: [{ key: 'n', operator: 'gt', value: 0 }] });
              break;
          }
          // Writes the domain refuses (restoring a live record, archiving twice) are fine; a fault is not.
          expect(res.status).toBeLessThan(500);
          if (res.status < 300) writes++;
        }
      }),
      { numRuns: 2 },
    );
    expect(writes).toBeGreaterThan(200);
    const after = await productionDump(owner.companyUuid);
    for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);
    expect(JSON.stringify((await index(t.app, owner, object.name, { limit: 100, sort: [{ key: 'n', direction: 'asc' }] })).body)).toBe(prodList);
    // The sandbox did change.
    const sbTotal = (await index(t.app, dev, object.name, { limit: 1 })).body.total as number;
    expect(sbTotal).toBeGreaterThan(20);
    const [sandboxEvents] = await t.platform.db.query<{ n: number }>('select count(*)::int4 as n from events where tenant = $1', [sandbox.uuid]);
    expect(sandboxEvents!.n).toBeGreaterThan(sandbox.copiedEvents + 200);
    expect((await data(t.app, owner, 'GET', `/api/v2/records/${seeded[0]}`)).properties.title).toBe('seed 0');
  });
});
