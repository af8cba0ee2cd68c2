import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liveAt } from '../../aggregates/page/page.publication.js';
import { aPage, call, data, useCmsSite } from '../webpages/cms-fixtures.js';

const cms = useCmsSite({ subdomain: 'prop' });
const nowS = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One step of a page's publication: publish or unpublish, now or a few seconds ahead. */
const step = fc.record({ op: fc.constantFrom('publish', 'unpublish'), inSeconds: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) });

/**
 * The law: whatever the publish and unpublish times (now, or scheduled a few seconds ahead, with
 * the scheduler off so only the clock moves them), the content API serves a page (by slug, in the
 * slug map, in the records list) only while the domain's own rule (`liveAt` over the page's
 * publication as its admin reads it) says it is live. Checked before and after time passes over
 * the scheduled instants; a check whose second changed under it is skipped (undecidable).
 */
describe('content API property: never an unpublished or future page', () => {
  it('serves a page exactly while it is live', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 2500 }), async (steps, waitMs) => {
        const { page } = await aPage(cms.app, cms.owner, cms.site);
        for (const s of steps) {
          const at = s.inSeconds === undefined ? undefined : nowS() + s.inSeconds;
          const key = s.op === 'publish' ? 'publishAt' : 'unpublishAt';
          // A step the page's state refuses (e.g. an end before the start) is a 400 / 409: it changes nothing.
          await call(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/${s.op}`, at === undefined ? {} : { [key]: at });
        }
        for (const wait of [0, waitMs]) {
          await sleep(wait);
          const admin = await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/${page.uuid}`);
          const publication = { published: admin.published, everPublished: false, publishAt: admin.publishAt, unpublishAt: admin.unpublishAt };
          const before = nowS();
          const one = await cms.app.inject({ method: 'GET', url: `/api/v2/content/${cms.subdomain}/pages/production/${page.slug}` });
          const slugs = (await cms.app.inject({ method: 'GET', url: `/api/v2/content/${cms.subdomain}/pages?limit=100` })).json().data.map((s: { uuid: string }) => s.uuid);
          const records = (await cms.app.inject({ method: 'GET', url: `/api/v2/content/${cms.subdomain}/records/${cms.site.object.name}?limit=100` })).json().data.map((r: { pageUuid: string }) => r.pageUuid);
          const after = nowS();
          const liveBefore = liveAt(publication, before);
          if (liveBefore !== liveAt(publication, after)) continue;
          expect(one.statusCode, JSON.stringify({ steps, publication, before })).toBe(liveBefore ? 200 : 404);
          expect(slugs.includes(page.uuid)).toBe(liveBefore);
          expect(records.includes(page.uuid)).toBe(liveBefore);
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
