import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservedObjectNames } from '../../aggregates/object/names.js';
import { loadObjectSchema } from '../../read-models/schema.queries.js';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aProperty, anObject, call, data, expectErrorBody, unique } from './schema-fixtures.js';

let t: TestApp;
let admin: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUpWithCompany(t.app);
});
afterAll(async () => t.close());

describe('objects', () => {
  it('creates, reads, lists, updates (not the name), soft-deletes and restores', async () => {
    const created = await call(t.app, admin, 'POST', '/api/v2/objects', { name: 'candidate', label: 'Candidate', plural: 'Candidates', description: 'People we hire', icon: 'user', group: 'HR' });
    expect(created.status).toBe(201);
    const obj = created.body.data;
    expect(obj).toMatchObject({ name: 'candidate', label: 'Candidate', plural: 'Candidates', description: 'People we hire', icon: 'user', group: 'HR', deleted: false, deletedAt: null });

    expect(await data(t.app, admin, 'GET', `/api/v2/objects/${obj.uuid}`)).toEqual(obj);

    const updated = await data(t.app, admin, 'PUT', `/api/v2/objects/${obj.uuid}`, { ...obj, label: 'Applicant', group: null });
    expect(updated).toMatchObject({ name: 'candidate', label: 'Applicant', group: null, plural: 'Candidates' });
    expect(updated.revision).toBe(obj.revision + 1);

    const rename = await call(t.app, admin, 'PUT', `/api/v2/objects/${obj.uuid}`, { name: 'applicant' });
    expectErrorBody(rename, 400, 'INVALID_VALUE');
    expect(rename.body.errors[0].correctionSuggestion).toContain('candidate');

    const deleted = await data(t.app, admin, 'DELETE', `/api/v2/objects/${obj.uuid}`);
    expect(deleted.deleted).toBe(true);
    const listLive = await call(t.app, admin, 'POST', '/api/v2/objects/index', { filters: [{ key: 'name', operator: 'equals', value: 'candidate' }] });
    expect(listLive.body.total).toBe(0);
    const listDeleted = await call(t.app, admin, 'POST', '/api/v2/objects/index', { filters: [{ key: 'deletedAt', operator: 'isnotnull' }] });
    expect(listDeleted.body.data.map((o: { uuid: string }) => o.uuid)).toContain(obj.uuid);
    expectErrorBody(await call(t.app, admin, 'PUT', `/api/v2/objects/${obj.uuid}`, { label: 'x' }), 409);
    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/objects', { name: 'candidate', label: 'Again' }), 409);

    const restored = await data(t.app, admin, 'POST', `/api/v2/objects/${obj.uuid}/restore`);
    expect(restored).toMatchObject({ deleted: false, deletedAt: null, label: 'Applicant' });
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/objects/${obj.uuid}/restore`), 409);
  });

  it('refuses bad and reserved names with a correction suggestion, and duplicates with 409', async () => {
    for (const name of ['Candidate', '1st', 'has space', 'dash-ed', '']) {
      const res = await call(t.app, admin, 'POST', '/api/v2/objects', { name, label: 'x' });
      expectErrorBody(res, 400);
    }
    for (const name of reservedObjectNames.filter((n) => /^[a-z][a-z0-9_]*$/.test(n))) {
      const res = await call(t.app, admin, 'POST', '/api/v2/objects', { name, label: 'x' });
      expectErrorBody(res, 400, 'INVALID_VALUE');
      expect(res.body.message).toContain('reserved');
    }
    const name = unique('dup');
    await anObject(t.app, admin, { name });
    const dup = await call(t.app, admin, 'POST', '/api/v2/objects', { name, label: 'x' });
    expectErrorBody(dup, 409);
    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/objects', { label: 'no name' }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/objects', { name: unique('nul'), label: 'bad\u0000label' }), 400);
  });

  it('lists with the pagination request of spec 2.1: limit, page, sort, query', async () => {
    const other = await signUpWithCompany(t.app);
    for (const name of ['alpha', 'bravo', 'charlie', 'delta', 'echo']) await anObject(t.app, other, { name, label: name.toUpperCase() });
    const first = await call(t.app, other, 'POST', '/api/v2/objects/index', { limit: 2, page: 0, sort: [{ key: 'name', direction: 'desc' }] });
    expect(first.body).toMatchObject({ total: 5, page: 0, perPage: 2, lastPage: 2 });
    expect(first.body.data.map((o: { name: string }) => o.name)).toEqual(['echo', 'delta']);
    const third = await call(t.app, other, 'POST', '/api/v2/objects/index', { limit: 2, page: 2, sort: [{ key: 'name', direction: 'desc' }] });
    expect(third.body.data.map((o: { name: string }) => o.name)).toEqual(['alpha']);
    const search = await call(t.app, other, 'POST', '/api/v2/objects/index', { query: 'RAV' });
    expect(search.body.data.map((o: { name: string }) => o.name)).toEqual(['bravo']);
    const contains = await call(t.app, other, 'POST', '/api/v2/objects/index', { filters: [{ key: 'label', operator: 'contains', value: 'ELT' }] });
    expect(contains.body.data.map((o: { name: string }) => o.name)).toEqual(['delta']);
    expect((await call(t.app, other, 'POST', '/api/v2/objects/index')).body.total).toBe(5);
    expectErrorBody(await call(t.app, other, 'POST', '/api/v2/objects/index', { filters: [{ key: 'nope', operator: 'equals', value: 1 }] }), 400);
    expectErrorBody(await call(t.app, other, 'POST', '/api/v2/objects/index', { filters: [{ key: 'name', operator: 'resembles', value: 'a' }] }), 400);
    expectErrorBody(await call(t.app, other, 'POST', '/api/v2/objects/index', { sort: [{ key: 'secret', direction: 'asc' }] }), 400);
  });
});

describe('properties', () => {
  let objectUuid: string;
  beforeAll(async () => {
    objectUuid = (await anObject(t.app, admin)).uuid;
  });
  const url = (rest = '') => `/api/v2/objects/${objectUuid}/properties${rest}`;

  it('creates properties of every type and format, with validation rules', async () => {
    const cases = [
      { type: 'string', format: 'text', minLength: 2, maxLength: 20, pattern: '[A-Z].*', required: true, unique: true },
      { type: 'string', format: 'textarea' },
      { type: 'string', format: 'rich-text' },
      { type: 'string', format: 'email', unique: true },
      { type: 'string', format: 'url' },
      { type: 'string', format: 'phone' },
      { type: 'number', format: 'number', min: 0, max: 10 },
      { type: 'number', format: 'currency', min: 0 },
      { type: 'string', format: 'select', options: [{ value: 'new', label: 'New' }, { value: 'won', label: 'Won' }] },
      { type: 'string', format: 'multi-select', options: [{ value: 'a', label: 'A' }] },
      { type: 'date', format: 'date' },
      { type: 'datetime', format: 'datetime' },
      { type: 'boolean', format: 'checkbox' },
      { type: 'json', format: 'json' },
      { type: 'string', format: 'file' },
    ];
    for (const c of cases) {
      const res = await call(t.app, admin, 'POST', url(), { name: unique(c.format.replace('-', '_')), label: c.format, ...c });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data).toMatchObject({ ...c, objectUuid, deleted: false });
    }
    const list = await call(t.app, admin, 'POST', url('/index'), { limit: 100 });
    expect(list.body.total).toBe(cases.length);
  });

  it('refuses inconsistent definitions with a 400 listing every problem', async () => {
    const res = await call(t.app, admin, 'POST', url(), { name: '9bad', label: '', type: 'boolean', format: 'email', minLength: 5, options: [{ value: 'x', label: 'X' }] });
    expectErrorBody(res, 400);
    expect(res.body.errors.length).toBeGreaterThanOrEqual(4);
    expectErrorBody(await call(t.app, admin, 'POST', url(), { name: unique('s'), label: 'S', type: 'string', format: 'select' }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', url(), { name: unique('s'), label: 'S', type: 'string', format: 'select', options: [{ value: 'a', label: 'A' }, { value: 'a', label: 'B' }] }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', url(), { name: unique('n'), label: 'N', type: 'number', format: 'number', min: 5, max: 1 }), 400, 'INVALID_VALUE');
    expectErrorBody(await call(t.app, admin, 'POST', url(), { name: unique('p'), label: 'P', type: 'string', format: 'text', pattern: '([' }), 400, 'INVALID_VALUE');
    expectErrorBody(await call(t.app, admin, 'POST', url(), { name: unique('l'), label: 'L', type: 'string', format: 'linked' }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', url(), { name: unique('x'), label: 'X', type: 'uuid', format: 'text' }), 400, 'INVALID_VALUE');
    const name = unique('twice');
    await aProperty(t.app, admin, objectUuid, { name });
    expectErrorBody(await call(t.app, admin, 'POST', url(), { name, label: 'Again', type: 'string', format: 'text' }), 409);
  });

  it('name, type, format and rules are immutable: a PUT changing them is a 400 with a correctionSuggestion', async () => {
    const prop = await aProperty(t.app, admin, objectUuid, { type: 'string', format: 'select', options: [{ value: 'open', label: 'Open' }, { value: 'done', label: 'Done' }], required: true });
    const p = url(`/${prop.uuid}`);
    for (const change of [{ name: 'renamed' }, { type: 'number' }, { format: 'multi-select' }, { required: false }, { unique: true }, { maxLength: 3 }]) {
      const res = await call(t.app, admin, 'PUT', p, { ...prop, ...change });
      expectErrorBody(res, 400, 'INVALID_VALUE');
      const field = Object.keys(change)[0]!;
      expect(res.body.errors[0].message).toContain(field);
      expect(res.body.errors[0].correctionSuggestion).toMatch(/create a new property/);
    }
    const removed = await call(t.app, admin, 'PUT', p, { options: [{ value: 'open', label: 'Open' }] });
    expectErrorBody(removed, 400, 'INVALID_VALUE');
    expect(removed.body.errors[0].message).toContain('done');
    expect((await data(t.app, admin, 'GET', p)).revision).toBe(prop.revision);

    const changed = await data(t.app, admin, 'PUT', p, {
      ...prop,
      label: 'Status',
      description: 'Where it stands',
      icon: 'flag',
      group: 'Workflow',
      options: [{ value: 'done', label: 'Finished' }, { value: 'open', label: 'Open' }, { value: 'later', label: 'Later' }],
    });
    expect(changed).toMatchObject({ name: prop.name, type: 'string', format: 'select', required: true, label: 'Status', icon: 'flag', group: 'Workflow' });
    expect(changed.options).toEqual([{ value: 'done', label: 'Finished' }, { value: 'open', label: 'Open' }, { value: 'later', label: 'Later' }]);
    const same = await data(t.app, admin, 'PUT', p, changed);
    expect(same.revision).toBe(changed.revision);
  });

  it('soft delete hides the property from the live schema; restore brings it back unchanged', async () => {
    const obj = await anObject(t.app, admin);
    const keep = await aProperty(t.app, admin, obj.uuid, { name: 'email', type: 'string', format: 'email', required: true, unique: true });
    const gone = await aProperty(t.app, admin, obj.uuid, { name: 'salary', type: 'number', format: 'currency', min: 0, max: 1e6, description: 'yearly' });
    const before = await loadObjectSchema(t.platform.db, admin.companyUuid, obj.name);
    expect(before!.properties.map((p) => p.name)).toEqual(['email', 'salary']);

    const deleted = await data(t.app, admin, 'DELETE', `/api/v2/objects/${obj.uuid}/properties/${gone.uuid}`);
    expect(deleted).toMatchObject({ deleted: true, name: 'salary' });
    const during = await loadObjectSchema(t.platform.db, admin.companyUuid, obj.name);
    expect(during!.properties.map((p) => p.name)).toEqual(['email']);
    const liveList = await call(t.app, admin, 'POST', `/api/v2/objects/${obj.uuid}/properties/index`);
    expect(liveList.body.data.map((p: { name: string }) => p.name)).toEqual(['email']);
    expectErrorBody(await call(t.app, admin, 'PUT', `/api/v2/objects/${obj.uuid}/properties/${gone.uuid}`, { label: 'x' }), 409);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/objects/${obj.uuid}/properties`, { name: 'salary', label: 'S', type: 'string', format: 'text' }), 409);
    expectErrorBody(await call(t.app, admin, 'DELETE', `/api/v2/objects/${obj.uuid}/properties/${gone.uuid}`), 409);

    const restored = await call(t.app, admin, 'POST', `/api/v2/objects/${obj.uuid}/properties/${gone.uuid}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.data).toMatchObject({ ...gone, deleted: false, deletedAt: null, revision: gone.revision + 2, updatedAt: expect.any(Number) });
    const after = await loadObjectSchema(t.platform.db, admin.companyUuid, obj.name);
    expect(after).toEqual(before);
    expect(keep.uuid).toBe(after!.properties[0]!.uuid);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/objects/${obj.uuid}/properties/${gone.uuid}/restore`), 409);
  });

  it('a property under the wrong object, or a missing one, is 404', async () => {
    const other = await anObject(t.app, admin);
    const prop = await aProperty(t.app, admin, objectUuid);
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/objects/${other.uuid}/properties/${prop.uuid}`), 404, 'NOT_FOUND');
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/objects/${objectUuid}/properties/${crypto.randomUUID()}`), 404, 'NOT_FOUND');
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/objects/${crypto.randomUUID()}/properties`, { name: 'x', label: 'x', type: 'string', format: 'text' }), 404);
  });
});

describe('authorization and tenancy', () => {
  it('401 without a token', async () => {
    expectErrorBody(await call(t.app, null, 'POST', '/api/v2/objects/index'), 401);
    expectErrorBody(await call(t.app, null, 'POST', '/api/v2/objects', { name: 'x', label: 'x' }), 401);
  });

  it('reading needs membership; changing needs ADMIN or schema:write (403 lists the missing scope)', async () => {
    const obj = await anObject(t.app, admin);
    const user = await joinCompany(t.app, admin, { role: 'USER' });
    expect((await call(t.app, user, 'GET', `/api/v2/objects/${obj.uuid}`)).status).toBe(200);
    expect((await call(t.app, user, 'POST', `/api/v2/objects/${obj.uuid}/properties/index`)).status).toBe(200);
    for (const [method, url, body] of [
      ['POST', '/api/v2/objects', { name: unique('x'), label: 'x' }],
      ['PUT', `/api/v2/objects/${obj.uuid}`, { label: 'y' }],
      ['DELETE', `/api/v2/objects/${obj.uuid}`, undefined],
      ['POST', `/api/v2/objects/${obj.uuid}/properties`, { name: 'p', label: 'p', type: 'string', format: 'text' }],
    ] as const) {
      const res = await call(t.app, user, method, url, body);
      expectErrorBody(res, 403);
      expect(res.body.scopes).toEqual(['schema:write']);
    }
    const editor = await joinCompany(t.app, admin, { role: 'USER', scopes: ['schema:write'] });
    expect((await call(t.app, editor, 'PUT', `/api/v2/objects/${obj.uuid}`, { label: 'By editor' })).status).toBe(200);
  });

  it("another company's object and property answer 404 on read, update, delete and restore", async () => {
    const [a, b] = await twoTenants(t.app);
    const obj = await anObject(t.app, a);
    const prop = await aProperty(t.app, a, obj.uuid);
    const o = `/api/v2/objects/${obj.uuid}`;
    const p = `${o}/properties/${prop.uuid}`;
    for (const [method, url, body] of [
      ['GET', o, undefined],
      ['PUT', o, { label: 'mine now' }],
      ['DELETE', o, undefined],
      ['POST', `${o}/restore`, undefined],
      ['POST', `${o}/properties`, { name: 'x', label: 'x', type: 'string', format: 'text' }],
      ['POST', `${o}/properties/index`, undefined],
      ['GET', p, undefined],
      ['PUT', p, { label: 'mine now' }],
      ['DELETE', p, undefined],
      ['POST', `${p}/restore`, undefined],
    ] as const) {
      expectErrorBody(await call(t.app, b, method, url, body), 404, 'NOT_FOUND');
    }
    expect((await call(t.app, b, 'POST', '/api/v2/objects/index')).body.total).toBe(0);
    expect((await data(t.app, a, 'GET', p)).label).toBe('A property');
    expect(await loadObjectSchema(t.platform.db, b.companyUuid, obj.name)).toBeNull();
    // The same name is free in another company.
    expect((await call(t.app, b, 'POST', '/api/v2/objects', { name: obj.name, label: 'Mine' })).status).toBe(201);
  });
});
