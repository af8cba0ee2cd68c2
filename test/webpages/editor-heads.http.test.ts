import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { aPage, call, data, expectErrorBody, patchUrl, unique, useCmsSite } from './cms-fixtures.js';

// The module editor decides a batch on the page as this server last wrote it (src/webpages/page-heads.ts)
// and keeps the module catalogue and the default environment (src/webpages/cms-cache.ts): none of
// it may show in an answer once the page, the record or the definitions changed.
const cms = useCmsSite();
let other: FastifyInstance;
beforeAll(async () => {
  // A second server on the same database and log: its own kept pages.
  other = await buildApp({ config: cms.t.config, db: cms.t.platform.db, store: cms.t.platform.store });
  await other.ready();
});
afterAll(async () => other.close());

const patchOn = (app: FastifyInstance, recordUuid: string, expectedRevision: number, patches: unknown[]) => call(app, cms.owner, 'POST', patchUrl(recordUuid), { locale: 'en', expectedRevision, patches });
const text = (body: string) => ({ op: 'addModule', module: { module: 'text', fields: { body } } });

describe('module editor: what a server keeps between batches', () => {
  it('decides on the page as it is when another server wrote it since, and names the current revision in a 409', async () => {
    const { record } = await aPage(cms.app, cms.owner, cms.site);
    expect((await patchOn(cms.app, record.uuid, 0, [text('one')])).status).toBe(200);
    const there = await patchOn(other, record.uuid, 1, [text('two')]);
    expect(there.status, JSON.stringify(there.body)).toBe(200);
    // This server last saw revision 1; the page is at 2.
    const here = await patchOn(cms.app, record.uuid, 2, [text('three')]);
    expect(here.status, JSON.stringify(here.body)).toBe(200);
    expect(here.body.data.document.revision).toBe(3);
    expect(here.body.data.document.modules.map((m: { fields: { body: string } }) => m.fields.body)).toEqual(['one', 'two', 'three']);
    // The other server last saw revision 2; the page is at 3.
    const stale = await patchOn(other, record.uuid, 2, [text('four')]);
    expectErrorBody(stale, 409);
    expect(stale.body.message).toMatch(/at revision 3/);
    const history = await data(cms.app, cms.owner, 'POST', `/api/v2/webpages/v2/pages/${record.uuid}/history/index?locale=en`, { page: 0, limit: 10 });
    expect(history.map((h: { index: number }) => h.index)).toEqual([3, 2, 1, 0]);
    expect(await data(other, cms.owner, 'GET', `/api/v2/webpages/v2/pages/${record.uuid}?locale=en`)).toEqual(here.body.data);
  });

  it("answers with the record's values and locales as they are now", async () => {
    const { record } = await aPage(cms.app, cms.owner, cms.site);
    expect((await patchOn(cms.app, record.uuid, 0, [text('one')])).body.data.record.properties).toEqual({ headline: record.properties.headline });
    await data(cms.app, cms.owner, 'PUT', `/api/v2/${cms.site.object.name}/${record.uuid}`, { properties: { headline: 'Changed' } });
    await data(cms.app, cms.owner, 'POST', '/api/v2/webpages', { recordUuid: record.uuid, environment: cms.site.env, locale: 'de' });
    const next = await patchOn(cms.app, record.uuid, 1, [text('two')]);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.data.record.properties).toEqual({ headline: 'Changed' });
    expect(next.body.data.locales).toEqual(['de', 'en']);
    expect(await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/v2/pages/${record.uuid}?locale=en`)).toEqual(next.body.data);
  });

  it('checks a batch against the module definitions as they are now', async () => {
    const name = unique('quote').toLowerCase().replace(/[^a-z0-9]/g, '');
    const module = await data(cms.app, cms.owner, 'POST', '/api/v2/modules', { name, fields: [{ name: 'said', type: 'text' }, { name: 'by', type: 'text' }] });
    const { record } = await aPage(cms.app, cms.owner, cms.site);
    const first = await patchOn(cms.app, record.uuid, 0, [{ op: 'addModule', module: { id: 'q', module: name, fields: { said: 'Hi', by: 'Ada' } } }]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/modules/${module.uuid}`, { fields: [{ name: 'said', type: 'text' }] });
    const refused = await patchOn(cms.app, record.uuid, 1, [{ op: 'setField', moduleId: 'q', field: 'by', value: 'Grace' }]);
    expectErrorBody(refused, 400);
    expect(refused.body.message).toMatch(new RegExp(`module "${name}" has no field "by"`));
  });

  it('follows the default environment when it changes', async () => {
    const env = unique('home').toLowerCase().replace(/[^a-z0-9]/g, '');
    await data(cms.app, cms.owner, 'POST', '/api/v2/cms/environments', { key: env });
    const { record } = await aPage(cms.app, cms.owner, { env, object: cms.site.object });
    const envs = (await data(cms.app, cms.owner, 'GET', '/api/v2/cms/environments')) as { key: string; default: boolean }[];
    const before = envs.find((e) => e.default)!.key;
    // Without ?environment the batch goes to the default environment, where the record has no page yet.
    expectErrorBody(await patchOn(cms.app, record.uuid, 0, [text('one')]), 404);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/cms/environments/${env}`, { default: true });
    expect((await patchOn(cms.app, record.uuid, 0, [text('one')])).status).toBe(200);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/cms/environments/${before}`, { default: true });
    expectErrorBody(await patchOn(cms.app, record.uuid, 1, [text('two')]), 404);
  });
});
