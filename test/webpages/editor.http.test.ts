import { describe, expect, it } from 'vitest';
import { aPage, call, data, expectErrorBody, patchUrl, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite();

const patch = (recordUuid: string, expectedRevision: number, patches: unknown[]) => call(cms.app, cms.owner, 'POST', patchUrl(recordUuid), { locale: 'en', expectedRevision, patches });

describe('module editor', () => {
  it('applies every op of a batch as one revision; ref addresses a module added earlier in the batch', async () => {
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    const first = await patch(record.uuid, 0, [
      { op: 'addModule', ref: 'hero', module: { module: 'hero', fields: { heading: 'Hi' } } },
      { op: 'addModule', module: { id: 'text-1', module: 'text', fields: { body: 'one' } } },
      { op: 'setField', ref: 'hero', field: 'heading', value: 'Hello' },
      { op: 'addModule', index: 0, module: { id: 'banner', module: 'banner' } },
    ]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const doc = first.body.data.document;
    expect(doc.revision).toBe(1);
    expect(doc.modules.map((m: { module: string }) => m.module)).toEqual(['banner', 'hero', 'text']);
    const heroId = doc.modules[1].id;
    expect(doc.modules[1]).toEqual({ id: heroId, module: 'hero', fields: { heading: 'Hello' }, hidden: false });
    expect(first.body.data).toMatchObject({ uuid: page.uuid, title: page.title, state: 'draft', record: { uuid: record.uuid } });

    const second = await patch(record.uuid, 1, [
      { op: 'moveModule', moduleId: 'banner', toIndex: 2 },
      { op: 'setFields', moduleId: 'text-1', fields: { body: 'two', tone: 'calm' } },
      { op: 'hideModule', moduleId: heroId },
      { op: 'setSeo', seo: { title: 'T', excerpt: 'E', slug: 'seo-slug', image: 'https://cdn.example/i.png' } },
      { op: 'setPage', fields: { title: 'New title', slug: 'new-slug', excerpt: 'Ex', css: 'a{}', headJs: 'h()', bodyJs: 'b()' } },
    ]);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const d2 = second.body.data;
    expect(d2.document).toMatchObject({ revision: 2, title: 'New title', slug: 'new-slug', excerpt: 'Ex', css: 'a{}', headJs: 'h()', bodyJs: 'b()', seo: { title: 'T', excerpt: 'E', slug: 'seo-slug' } });
    expect(d2.title).toBe('New title');
    expect(d2.slug).toBe('new-slug');
    expect(d2.document.modules.map((m: { id: string }) => m.id)).toEqual([heroId, 'text-1', 'banner']);
    expect(d2.document.modules[0].hidden).toBe(true);
    expect(d2.document.modules[1].fields).toEqual({ body: 'two', tone: 'calm' });

    const third = await patch(record.uuid, 2, [{ op: 'showModule', moduleId: heroId }, { op: 'removeModule', moduleId: 'banner' }]);
    expect(third.body.data.document.modules.map((m: { id: string; hidden: boolean }) => [m.id, m.hidden])).toEqual([[heroId, false], ['text-1', false]]);

    const replaced = await patch(record.uuid, 3, [{ op: 'replaceModules', modules: [{ module: 'footer', fields: { year: 2026 } }] }]);
    expect(replaced.body.data.document.modules).toEqual([{ id: expect.any(String), module: 'footer', fields: { year: 2026 }, hidden: false }]);
    expect(replaced.body.data.document.revision).toBe(4);
    // The editor's read gives the same DTO.
    expect(await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/v2/pages/${record.uuid}?locale=en`)).toEqual(replaced.body.data);
  });

  it('refuses bad input with a 400 naming it, and applies nothing of the batch', async () => {
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    await patch(record.uuid, 0, [{ op: 'addModule', module: { id: 'a', module: 'text' } }]);
    const cases: [unknown[], RegExp, RegExp][] = [
      [[{ op: 'explode' }], /unknown op "explode"/, /addModule, removeModule/],
      [[{ op: 'removeModule', moduleId: 'nope' }], /module nope is not on the page/, /a/],
      [[{ op: 'addModule', index: 5, module: { module: 'text' } }], /index 5 is out of range/, /0 to 1/],
      [[{ op: 'moveModule', moduleId: 'a', toIndex: 1 }], /toIndex 1 is out of range/, /0 to 0/],
      [[{ op: 'setField', ref: 'later', field: 'x', value: 1 }, { op: 'addModule', ref: 'later', module: { module: 'text' } }], /no module was added with ref "later"/, /before this one/],
      [[{ op: 'addModule', module: { id: 'b', module: 'text' } }, { op: 'setField', moduleId: 'b', field: 'x' }], /value is required/, /null clears/],
      [[{ op: 'setPage', fields: { color: 'red' } }], /color is not a page field/, /title, slug/],
      [[{ op: 'setPage', fields: { slug: 'Not A Slug' } }], /is not a slug/, /lowercase/],
      [[{ op: 'addModule', module: { id: 'a', module: 'text' } }], /already on the page/, /another id/],
    ];
    for (const [patches, message, suggestion] of cases) {
      const res = await patch(record.uuid, 1, patches);
      expectErrorBody(res, 400);
      expect(res.body.message).toMatch(message);
      expect(res.body.errors[0].correctionSuggestion).toMatch(suggestion);
    }
    const after = await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/${page.uuid}`);
    expect(after.document.revision).toBe(1);
    expect(after.document.modules.map((m: { id: string }) => m.id)).toEqual(['a']);
  });

  it('answers a stale expectedRevision with 409 naming the current revision, and changes nothing', async () => {
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    await patch(record.uuid, 0, [{ op: 'setSeo', seo: { title: 'one' } }]);
    const stale = await patch(record.uuid, 0, [{ op: 'setSeo', seo: { title: 'two' } }]);
    expectErrorBody(stale, 409);
    expect(stale.body.message).toMatch(/revision 1/);
    expect(stale.body.errors[0].correctionSuggestion).toMatch(/expectedRevision 1/);
    expect((await data(cms.app, cms.owner, 'GET', `/api/v2/webpages/${page.uuid}`)).document.seo).toEqual({ title: 'one' });
  });

  it('lists the history (who, when, requestId, ops), reads any revision, and restores one as a new revision', async () => {
    const { record } = await aPage(cms.app, cms.owner, cms.site);
    const url = `/api/v2/webpages/v2/pages/${record.uuid}`;
    for (let i = 0; i < 3; i++) {
      const res = await cms.app.inject({ method: 'POST', url: patchUrl(record.uuid), headers: { ...cms.owner.headers, 'x-request-id': `edit-${i}-${record.uuid}` }, payload: { locale: 'en', expectedRevision: i, patches: [{ op: 'addModule', module: { id: `m${i}`, module: 'text', fields: { n: i } } }] } });
      expect(res.statusCode, res.body).toBe(200);
    }
    const history = await call(cms.app, cms.owner, 'POST', `${url}/history/index?locale=en`, { page: 0, limit: 2 });
    expect(history.body.total).toBe(4);
    expect(history.body.data).toHaveLength(2);
    expect(history.body.data[0]).toMatchObject({ index: 3, kind: 'patched', by: { uuid: cms.owner.userUuid }, requestId: `edit-2-${record.uuid}`, ops: [{ op: 'addModule', index: 2, module: { id: 'm2' } }] });
    expect(typeof history.body.data[0].at).toBe('number');

    const one = await data(cms.app, cms.owner, 'GET', `${url}/history/1?locale=en`);
    expect(one.document.modules.map((m: { id: string }) => m.id)).toEqual(['m0']);
    const restored = await data(cms.app, cms.owner, 'POST', `${url}/history/1/restore?locale=en`);
    expect(restored.document.revision).toBe(4);
    expect(restored.document.modules.map((m: { id: string }) => m.id)).toEqual(['m0']);
    const after = await call(cms.app, cms.owner, 'POST', `${url}/history/index?locale=en`, { page: 0, limit: 1 });
    expect(after.body.total).toBe(5);
    expect(after.body.data[0]).toMatchObject({ index: 4, kind: 'restored', restoredFrom: 1 });
    // The restored-over revision is still there.
    expect((await data(cms.app, cms.owner, 'GET', `${url}/history/3?locale=en`)).document.modules).toHaveLength(3);
    expectErrorBody(await call(cms.app, cms.owner, 'POST', `${url}/history/9/restore?locale=en`), 400, 'INVALID_VALUE');
    expectErrorBody(await call(cms.app, cms.owner, 'GET', `${url}/history/9?locale=en`), 400);
  });
});
