import { describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany } from '../support/actors.js';
import { aPage, call, data, expectErrorBody, patchUrl, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite();

describe('module definitions', () => {
  it('creates, lists, reads, updates and deletes company modules; names are unique', async () => {
    const created = await call(cms.app, cms.owner, 'POST', '/api/v2/modules', { name: 'quote', label: 'Quote', fields: [{ name: 'text', type: 'text', required: true }, { name: 'size', type: 'select', options: ['s', 'l'] }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const m = created.body.data;
    expect(m).toMatchObject({ name: 'quote', label: 'Quote', personal: false, fields: [{ name: 'text', type: 'text', required: true }, { name: 'size', type: 'select', required: false, options: ['s', 'l'] }], revision: 0 });
    expect(await data(cms.app, cms.owner, 'GET', `/api/v2/modules/${m.uuid}`)).toEqual(m);
    expectErrorBody(await call(cms.app, cms.owner, 'POST', '/api/v2/modules', { name: 'quote' }), 409);
    expectErrorBody(await call(cms.app, cms.owner, 'POST', '/api/v2/modules', { name: 'bad', fields: [{ name: 'x', type: 'select' }] }), 400);
    const list = await call(cms.app, cms.owner, 'POST', '/api/v2/modules/index', { page: 0 });
    expect(list.body.data.map((d: { name: string }) => d.name)).toEqual(['banner', 'footer', 'hero', 'quote', 'text']);
    const updated = await data(cms.app, cms.owner, 'PUT', `/api/v2/modules/${m.uuid}`, { label: 'Big quote' });
    expect(updated).toMatchObject({ label: 'Big quote', revision: 1 });
    expect((await call(cms.app, cms.owner, 'DELETE', `/api/v2/modules/${m.uuid}`)).body.data).toBe('deleted');
    expectErrorBody(await call(cms.app, cms.owner, 'GET', `/api/v2/modules/${m.uuid}`), 404);
  });

  it("keeps personal modules to their cms.owner, and the owner's page edits may use them", async () => {
    const editor = await joinCompany(cms.app, cms.owner, { role: 'USER', scopes: ['webpages:write'] });
    const mine = await data(cms.app, editor, 'POST', '/api/v2/modules/personal', { name: 'note', fields: [{ name: 'text', type: 'text' }] });
    expect(mine.personal).toBe(true);
    expect((await call(cms.app, editor, 'POST', '/api/v2/modules/personal/index', {})).body.data.map((d: { name: string }) => d.name)).toEqual(['note']);
    expect((await call(cms.app, cms.owner, 'POST', '/api/v2/modules/personal/index', {})).body.total).toBe(0);
    expectErrorBody(await call(cms.app, cms.owner, 'GET', `/api/v2/modules/personal/${mine.uuid}`), 404);
    expectErrorBody(await call(cms.app, editor, 'GET', `/api/v2/modules/${mine.uuid}`), 404);
    const { record } = await aPage(cms.app, cms.owner, cms.site);
    const byEditor = await call(cms.app, editor, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { module: 'note', fields: { text: 'hi' } } }] });
    expect(byEditor.status, JSON.stringify(byEditor.body)).toBe(200);
    const byOwner = await call(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 1, patches: [{ op: 'addModule', module: { module: 'note' } }] });
    expectErrorBody(byOwner, 400, 'INVALID_VALUE');
    expect(byOwner.body.message).toMatch(/module "note" is not defined/);
  });

  it('checks page module fields against the definition on every patch, naming module and field', async () => {
    const { record } = await aPage(cms.app, cms.owner, cms.site);
    await data(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { id: 'f', module: 'footer', fields: { year: 2026 } } }] });
    const cases: [unknown, RegExp][] = [
      [{ op: 'addModule', module: { module: 'nope' } }, /module "nope" is not defined/],
      [{ op: 'addModule', module: { module: 'footer' } }, /field "year" of module "footer" is required/],
      [{ op: 'setField', moduleId: 'f', field: 'year', value: 'soon' }, /field "year" of module "footer" must be a number value/],
      [{ op: 'setField', moduleId: 'f', field: 'colour', value: 'red' }, /module "footer" has no field "colour"/],
      [{ op: 'addModule', module: { module: 'text', fields: { tone: 'shouty' } } }, /field "tone" of module "text" must be one of calm, loud/],
    ];
    for (const [p, message] of cases) {
      const res = await call(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 1, patches: [p] });
      expectErrorBody(res, 400);
      expect(res.body.message).toMatch(message);
    }
  });

  it('answers 401, 403 without webpages:write for company modules, 404 for another company', async () => {
    const m = await data(cms.app, cms.owner, 'POST', '/api/v2/modules', { name: 'matrix' });
    const reader = await joinCompany(cms.app, cms.owner, { role: 'USER' });
    const stranger = await signUpWithCompany(cms.app);
    expectErrorBody(await call(cms.app, null, 'GET', `/api/v2/modules/${m.uuid}`), 401);
    expectErrorBody(await call(cms.app, null, 'POST', '/api/v2/modules/personal', { name: 'x' }), 401);
    expect((await call(cms.app, reader, 'GET', `/api/v2/modules/${m.uuid}`)).status).toBe(200);
    expectErrorBody(await call(cms.app, reader, 'POST', '/api/v2/modules', { name: 'x' }), 403);
    expectErrorBody(await call(cms.app, reader, 'PUT', `/api/v2/modules/${m.uuid}`, { label: 'x' }), 403);
    expectErrorBody(await call(cms.app, reader, 'DELETE', `/api/v2/modules/${m.uuid}`), 403);
    for (const method of ['GET', 'PUT', 'DELETE'] as const) expectErrorBody(await call(cms.app, stranger, method, `/api/v2/modules/${m.uuid}`, method === 'PUT' ? { label: 'x' } : undefined), 404);
  });
});
