import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { aPage, aSite, call, data, expectErrorBody, patchUrl, unique } from '../webpages/cms-fixtures.js';
import { caller, startAppsApp, superAdmin } from './apps-fixtures.js';

let t: Awaited<ReturnType<typeof startAppsApp>>;
let api: ReturnType<typeof caller>;
let maker: TestTenant;
let buyer: TestTenant;
let root: TestTenant;
let subdomain: string;
let site: Awaited<ReturnType<typeof aSite>>;
let appUuid: string;

const gallery = { name: 'gallery', label: 'Gallery', fields: [{ name: 'title', type: 'text', required: true }, { name: 'count', type: 'number' }] };
const quote = { name: 'quote', label: 'Quote', fields: [{ name: 'text', type: 'text' }] };

beforeAll(async () => {
  t = await startAppsApp({ REACTORS_ENABLED: 'false' });
  api = caller(t.app);
  maker = await signUpWithCompany(t.app);
  subdomain = unique('site').replace(/_/g, '-');
  buyer = await signUpWithCompany(t.app, { subdomain });
  root = await superAdmin(t.app, await signUpWithCompany(t.app));
  site = await aSite(t.app, buyer);
  const created = (await api('POST', '/apps/public', maker.headers, { label: 'Blocks' })).json().data;
  appUuid = created.uuid;
  await api('POST', `/apps/public/${appUuid}/submit`, maker.headers);
  expect((await api('POST', `/apps/public/${appUuid}/review`, root.headers, { outcome: 'APPROVE', feedback: 'ok' })).statusCode).toBe(200);
  expect((await api('PUT', `/apps/${appUuid}/cms-modules`, maker.headers, { modules: [gallery, quote] })).statusCode).toBe(200);
});
afterAll(async () => t.close());

const patch = (recordUuid: string, expectedRevision: number, patches: unknown[], who = buyer) => call(t.app, who, 'POST', patchUrl(recordUuid), { locale: 'en', expectedRevision, patches });
const publicPage = (slug: string) => call(t.app, null, 'GET', `/api/v2/webpages/public/production/${slug}?subdomain=${subdomain}`);

describe('pages use the installed apps\' CMS modules (spec 4.12)', () => {
  it('offers an app\'s modules as <appUuid>/<name> only where the app is installed; fields are checked against the app\'s definition', async () => {
    const { record } = await aPage(t.app, buyer, site);
    const g = `${appUuid}/gallery`;
    const before = await patch(record.uuid, 0, [{ op: 'addModule', module: { module: g, fields: { title: 'Hi' } } }]);
    expectErrorBody(before, 400, 'INVALID_VALUE');
    expect(before.body.message).toMatch(/is not defined/);

    expect((await api('POST', `/apps/${appUuid}/install`, buyer.headers, { settings: {} })).statusCode).toBe(201);
    const added = await data(t.app, buyer, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { id: 'g1', module: g, fields: { title: 'Hi', count: 3 } } }] });
    expect(added.document.modules).toEqual([{ id: 'g1', module: g, fields: { title: 'Hi', count: 3 }, hidden: false }]);

    const cases: [unknown, RegExp][] = [
      [{ op: 'setField', moduleId: 'g1', field: 'count', value: 'three' }, new RegExp(`field "count" of module "${g}" must be a number value`)],
      [{ op: 'addModule', module: { module: g, fields: {} } }, /field "title" .* is required/],
      [{ op: 'addModule', module: { module: 'gallery', fields: { title: 'x' } } }, /module "gallery" is not defined/],
    ];
    for (const [p, message] of cases) {
      const res = await patch(record.uuid, 1, [p]);
      expectErrorBody(res, 400);
      expect(res.body.message).toMatch(message);
    }
    // A company module of the same short name does not collide with the app's.
    await data(t.app, buyer, 'POST', '/api/v2/modules', { name: 'gallery', fields: [{ name: 'caption', type: 'text' }] });
    const both = await data(t.app, buyer, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 1, patches: [{ op: 'addModule', module: { id: 'c1', module: 'gallery', fields: { caption: 'mine' } } }] });
    expect(both.document.modules.map((m: { module: string }) => m.module)).toEqual([g, 'gallery']);

    // Another company, without the app, cannot use its modules.
    const other = await signUpWithCompany(t.app);
    const otherSite = await aSite(t.app, other);
    const { record: otherRecord } = await aPage(t.app, other, otherSite);
    expectErrorBody(await patch(otherRecord.uuid, 0, [{ op: 'addModule', module: { module: g, fields: { title: 'x' } } }], other), 400);
  });

  it('a retired module stays on the pages that hold it (public read, edits) but cannot be added again; uninstall keeps pages rendering, edits of its modules refused', async () => {
    const { record, page } = await aPage(t.app, buyer, site);
    const g = `${appUuid}/gallery`;
    await data(t.app, buyer, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { id: 'g1', module: g, fields: { title: 'Kept' } } }] });
    await data(t.app, buyer, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});

    const replaced = (await api('PUT', `/apps/${appUuid}/cms-modules`, maker.headers, { modules: [quote] })).json().data;
    expect(replaced.map((m: { name: string; retired: boolean }) => [m.name, m.retired])).toEqual([['quote', false], ['gallery', true]]);

    const pub = await publicPage(page.slug);
    expect(pub.status, JSON.stringify(pub.body)).toBe(200);
    expect(pub.body.data.document.modules).toEqual([{ id: 'g1', module: g, fields: { title: 'Kept' }, hidden: false }]);

    // Held modules stay editable (still checked); a new one is refused with a suggestion.
    const edited = await data(t.app, buyer, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 1, patches: [{ op: 'setField', moduleId: 'g1', field: 'title', value: 'Edited' }] });
    expect(edited.document.modules[0].fields).toEqual({ title: 'Edited' });
    expectErrorBody(await patch(record.uuid, 2, [{ op: 'setField', moduleId: 'g1', field: 'count', value: 'x' }]), 400);
    for (const p of [
      { op: 'addModule', module: { module: g, fields: { title: 'New' } } },
      { op: 'replaceModules', modules: [{ id: 'g1', module: g, fields: { title: 'Edited' } }, { id: 'g2', module: g, fields: { title: 'New' } }] },
    ]) {
      const refused = await patch(record.uuid, 2, [p]);
      expectErrorBody(refused, 400, 'INVALID_VALUE');
      expect(refused.body.message).toMatch(new RegExp(`module "${g}" is retired`));
      expect(refused.body.errors[0].correctionSuggestion).toContain(`${appUuid}/quote`);
    }
    const kept = await data(t.app, buyer, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 2, patches: [{ op: 'replaceModules', modules: [{ id: 'g1', module: g, fields: { title: 'Again' } }] }] });
    expect(kept.document.modules).toEqual([{ id: 'g1', module: g, fields: { title: 'Again' }, hidden: false }]);
    expect((await data(t.app, buyer, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 3, patches: [{ op: 'addModule', module: { module: `${appUuid}/quote`, fields: { text: 'q' } } }] })).document.modules).toHaveLength(2);

    // Uninstall: the page keeps rendering; a change to the app's modules is refused; removing one is not.
    expect((await api('POST', `/apps/${appUuid}/uninstall`, buyer.headers, { keepData: true })).statusCode).toBe(200);
    expect((await publicPage(page.slug)).body.data.document.modules.map((m: { module: string }) => m.module)).toEqual([g, `${appUuid}/quote`]);
    const gone = await patch(record.uuid, 4, [{ op: 'setField', moduleId: 'g1', field: 'title', value: 'x' }]);
    expectErrorBody(gone, 400, 'INVALID_VALUE');
    expect(gone.body.message).toMatch(/is not defined/);
    const removed = await data(t.app, buyer, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 4, patches: [{ op: 'removeModule', moduleId: 'g1' }] });
    expect(removed.document.modules.map((m: { module: string }) => m.module)).toEqual([`${appUuid}/quote`]);
  });
});
