import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { applyProjections } from '../../src/projections/apply.js';
import { pagesProjection } from '../../projections/pages.projection.js';
import { cmsEnvironmentsProjection } from '../../projections/cms-environments.projection.js';
import { cmsModulesProjection } from '../../projections/cms-modules.projection.js';
import { aPage, call, data, patchUrl, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite();

/** An op as numbers; made concrete against the document at the time it is sent. */
type AbstractOp = { kind: number; a: number; b: number; text: string };
type Step = { restore: true; at: number } | { restore: false; ops: AbstractOp[] };

const opArb = fc.record({ kind: fc.integer({ min: 0, max: 8 }), a: fc.nat(50), b: fc.nat(50), text: fc.string({ maxLength: 6 }) });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ restore: fc.constant(false as const), ops: fc.array(opArb, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ restore: fc.constant(true as const), at: fc.nat(100) }) },
);

type Doc = { revision: number; modules: { id: string }[] };

function concrete(op: AbstractOp, ids: string[], n: number): Record<string, unknown> {
  const id = ids.length ? ids[op.a % ids.length] : undefined;
  switch (id === undefined ? 0 : op.kind) {
    case 0:
      return { op: 'addModule', index: op.b % (ids.length + 1), module: { module: 'text', fields: { t: op.text, n } } };
    case 1:
      return { op: 'removeModule', moduleId: id };
    case 2:
      return { op: 'moveModule', moduleId: id, toIndex: op.b % ids.length };
    case 3:
      return { op: 'setField', moduleId: id, field: 'body', value: op.text };
    case 4:
      return { op: 'setFields', moduleId: id, fields: { a: op.a, t: op.text } };
    case 5:
      return { op: op.b % 2 ? 'hideModule' : 'showModule', moduleId: id };
    case 6:
      return { op: 'setSeo', seo: { title: op.text } };
    case 7:
      return { op: 'setPage', fields: { excerpt: op.text, css: `/* ${n} */` } };
    default:
      return { op: 'replaceModules', modules: [{ module: 'hero', fields: { h: op.text } }] };
  }
}

/** Tracks module ids through ops of the batch so later ops address what exists. */
function idsAfter(ids: string[], op: Record<string, unknown>): string[] | null {
  if (op.op === 'removeModule') return ids.filter((i) => i !== op.moduleId);
  if (op.op === 'addModule' || op.op === 'replaceModules') return null;
  return ids;
}

const pageRows = async () => ({
  pages: await cms.t.platform.db.query('select * from rm_pages order by tenant, page_uuid'),
  revisions: await cms.t.platform.db.query('select * from rm_page_revisions order by tenant, page_uuid, revision'),
  snapshots: await cms.t.platform.db.query('select * from rm_page_snapshots order by tenant, page_uuid, revision'),
  publications: await cms.t.platform.db.query('select * from rm_page_publications order by tenant, page_uuid, stream_revision'),
  environments: await cms.t.platform.db.query('select * from rm_cms_environments order by tenant, key'),
  modules: await cms.t.platform.db.query('select * from rm_cms_modules order by tenant, module_uuid'),
});

describe('page history (property)', () => {
  it('for random patch sequences, every history index reads and restores to the document it was, and a rebuild equals the live read models', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), fc.nat(1000), async (steps, pick) => {
        const { record } = await aPage(cms.app, cms.owner, cms.site);
        const base = `/api/v2/webpages/v2/pages/${record.uuid}`;
        const seen: Doc[] = [(await data(cms.app, cms.owner, 'GET', `${base}?locale=en`)).document];
        for (const step of steps) {
          const current = seen[seen.length - 1]!;
          if (step.restore) {
            const at = step.at % seen.length;
            const restored = await data(cms.app, cms.owner, 'POST', `${base}/history/${at}/restore?locale=en`);
            expect(restored.document).toEqual({ ...seen[at], revision: current.revision + 1 });
            seen.push(restored.document);
            continue;
          }
          let ids: string[] | null = current.modules.map((m) => m.id);
          const patches: Record<string, unknown>[] = [];
          for (const op of step.ops) {
            if (ids === null) break;
            const p = concrete(op, ids, patches.length);
            patches.push(p);
            ids = idsAfter(ids, p);
          }
          const res = await call(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: current.revision, patches });
          expect(res.status, JSON.stringify({ patches, body: res.body })).toBe(200);
          seen.push(res.body.data.document);
        }
        for (const [i, doc] of seen.entries()) {
          expect((await data(cms.app, cms.owner, 'GET', `${base}/history/${i}?locale=en`)).document).toEqual(doc);
        }
        const at = pick % seen.length;
        const restored = await data(cms.app, cms.owner, 'POST', `${base}/history/${at}/restore?locale=en`);
        expect(restored.document).toEqual({ ...seen[at], revision: seen.length });
      }),
      { numRuns: process.env.DATABASE_URL ? 25 : 5 },
    );
    const live = await pageRows();
    expect(live.revisions.length).toBeGreaterThan(10);
    const projections = [pagesProjection, cmsEnvironmentsProjection, cmsModulesProjection];
    await rebuildReadModels(cms.t.platform.db, cms.t.platform.store, projections);
    expect(await pageRows()).toEqual(live);
    const all = await cms.t.platform.store.readAll({ maxCount: 100_000 });
    await cms.t.platform.db.transaction((tx) => applyProjections(projections, all, tx));
    expect(await pageRows()).toEqual(live);
  });

  it('reads revisions across snapshots (every 100) as they were', async () => {
    const { record } = await aPage(cms.app, cms.owner, cms.site);
    const base = `/api/v2/webpages/v2/pages/${record.uuid}`;
    const seen: Doc[] = [];
    for (let i = 0; i < 205; i++) {
      const patches = i % 7 === 3 ? [{ op: 'replaceModules', modules: [{ module: 'hero', fields: { i } }] }] : [{ op: 'addModule', index: 0, module: { module: 'text', fields: { i } } }];
      const res = await call(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: i, patches });
      expect(res.status).toBe(200);
      seen[i + 1] = res.body.data.document;
    }
    const [snaps] = await cms.t.platform.db.query<{ n: number }>('select count(*)::int as n from rm_page_snapshots where page_uuid = $1', [seen[1] && (await data(cms.app, cms.owner, 'GET', `${base}?locale=en`)).uuid]);
    expect(snaps!.n).toBe(3);
    for (const i of [1, 99, 100, 101, 150, 199, 200, 201, 205]) {
      expect((await data(cms.app, cms.owner, 'GET', `${base}/history/${i}?locale=en`)).document).toEqual(seen[i]);
    }
  });
});
