import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aPage, aSite, call, data, expectErrorBody, patchUrl } from './cms-fixtures.js';

let t: TestApp;
let owner: TestTenant;
let site: Awaited<ReturnType<typeof aSite>>;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
  site = await aSite(t.app, owner);
});
afterAll(async () => t.close());

describe('module definitions', () => {
  it('creates, lists, reads, updates and deletes company modules; names are unique', async () => {
    const created = await call(t.app, owner, 'POST', '/api/v2/modules', { name: 'quote', label: 'Quote', fields: [{ name: 'text', type: 'text', required: true }, { name: 'size', type: 'select', options: ['s', 'l'] }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const m = created.body.data;
    expect(m).toMatchObject({ name: 'quote', label: 'Quote', personal: false, fields: [{ name: 'text', type: 'text', required: true }, { name: 'size', type: 'select', required: false, options: ['s', 'l'] }], revision: 0 });
    expect(await data(t.app, owner, 'GET', `/api/v2/modules/${m.uuid}`)).toEqual(m);
    expectErrorBody(await call(t.app, owner, 'POST', '/api/v2/modules', { name: 'quote' }), 409);
    expectErrorBody(await call(t.app, owner, 'POST', '/api/v2/modules', { name: 'bad', fields: [{ name: 'x', type: 'select' }] }), 400);
    const list = await call(t.app, owner, 'POST', '/api/v2/modules/index', { page: 0 });
    expect(list.body.data.map((d: { name: string }) => d.name)).toEqual(['banner', 'footer', 'hero', 'quote', 'text']);
    const updated = await data(t.app, owner, 'PUT', `/api/v2/modules/${m.uuid}`, { label: 'Big quote' });
    expect(updated).toMatchObject({ label: 'Big quote', revision: 1 });
    expect((await call(t.app, owner, 'DELETE', `/api/v2/modules/${m.uuid}`)).body.data).toBe('deleted');
    expectErrorBody(await call(t.app, owner, 'GET', `/api/v2/modules/${m.uuid}`), 404);
  });

  it("keeps personal modules to their owner, and the owner's page edits may use them", async () => {
    const editor = await joinCompany(t.app, owner, { role: 'USER', scopes: ['webpages:write'] });
    const mine = await data(t.app, editor, 'POST', '/api/v2/modules/personal', { name: 'note', fields: [{ name: 'text', type: 'text' }] });
    expect(mine.personal).toBe(true);
    expect((await call(t.app, editor, 'POST', '/api/v2/modules/personal/index', {})).body.data.map((d: { name: string }) => d.name)).toEqual(['note']);
    expect((await call(t.app, owner, 'POST', '/api/v2/modules/personal/index', {})).body.total).toBe(0);
    expectErrorBody(await call(t.app, owner, 'GET', `/api/v2/modules/personal/${mine.uuid}`), 404);
    expectErrorBody(await call(t.app, editor, 'GET', `/api/v2/modules/${mine.uuid}`), 404);
    const { record } = await aPage(t.app, owner, site);
    const byEditor = await call(t.app, editor, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { module: 'note', fields: { text: 'hi' } } }] });
    expect(byEditor.status, JSON.stringify(byEditor.body)).toBe(200);
    const byOwner = await call(t.app, owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 1, patches: [{ op: 'addModule', module: { module: 'note' } }] });
    expectErrorBody(byOwner, 400, 'INVALID_VALUE');
    expect(byOwner.body.message).toMatch(/module "note" is not defined/);
  });

  it('checks page module fields against the definition on every patch, naming module and field', async () => {
    const { record } = await aPage(t.app, owner, site);
    await data(t.app, owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 0, patches: [{ op: 'addModule', module: { id: 'f', module: 'footer', fields: { year: 2026 } } }] });
    const cases: [unknown, RegExp][] = [
      [{ op: 'addModule', module: { module: 'nope' } }, /module "nope" is not defined/],
      [{ op: 'addModule', module: { module: 'footer' } }, /field "year" of module "footer" is required/],
      [{ op: 'setField', moduleId: 'f', field: 'year', value: 'soon' }, /field "year" of module "footer" must be a number value/],
      [{ op: 'setField', moduleId: 'f', field: 'colour', value: 'red' }, /module "footer" has no field "colour"/],
      [{ op: 'addModule', module: { module: 'text', fields: { tone: 'shouty' } } }, /field "tone" of module "text" must be one of calm, loud/],
    ];
    for (const [p, message] of cases) {
      const res = await call(t.app, owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: 1, patches: [p] });
      expectErrorBody(res, 400);
      expect(res.body.message).toMatch(message);
    }
  });

  it('answers 401, 403 without webpages:write for company modules, 404 for another company', async () => {
    const m = await data(t.app, owner, 'POST', '/api/v2/modules', { name: 'matrix' });
    const reader = await joinCompany(t.app, owner, { role: 'USER' });
    const stranger = await signUpWithCompany(t.app);
    expectErrorBody(await call(t.app, null, 'GET', `/api/v2/modules/${m.uuid}`), 401);
    expectErrorBody(await call(t.app, null, 'POST', '/api/v2/modules/personal', { name: 'x' }), 401);
    expect((await call(t.app, reader, 'GET', `/api/v2/modules/${m.uuid}`)).status).toBe(200);
    expectErrorBody(await call(t.app, reader, 'POST', '/api/v2/modules', { name: 'x' }), 403);
    expectErrorBody(await call(t.app, reader, 'PUT', `/api/v2/modules/${m.uuid}`, { label: 'x' }), 403);
    expectErrorBody(await call(t.app, reader, 'DELETE', `/api/v2/modules/${m.uuid}`), 403);
    for (const method of ['GET', 'PUT', 'DELETE'] as const) expectErrorBody(await call(t.app, stranger, method, `/api/v2/modules/${m.uuid}`, method === 'PUT' ? { label: 'x' } : undefined), 404);
  });
});
