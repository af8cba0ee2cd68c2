import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRelation } from '../schema/schema-fixtures.js';
import { aRecord, anObjectWith, call, data, expectErrorBody, index, type TestObject } from './records-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let other: TestTenant;
let people: TestObject;
let companies: TestObject;
let employees: TestObject;
let worksAt: { uuid: string };

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  [admin, other] = await twoTenants(t.app);
  people = await anObjectWith(t.app, admin, { name: {}, age: { type: 'number', format: 'number' } });
  companies = await anObjectWith(t.app, admin, { title: {}, city: {} });
  employees = await anObjectWith(t.app, admin, { salary: { type: 'number', format: 'number' }, badge: { unique: true } });
  worksAt = await aRelation(t.app, admin, people.uuid, companies.uuid, { name: 'employer', direction: 'BIDIRECTIONAL', toName: 'staff' });
});
afterAll(async () => t.close());

const connect = (from: string, to: string, edgeProperties: Record<string, unknown> = {}) =>
  data(t.app, admin, 'PUT', `/api/v2/relations/${worksAt.uuid}/connection/${from}/${to}`, edgeProperties && Object.keys(edgeProperties).length ? { edgeProperties } : {});

describe('relations on records', () => {
  it('shows connected records as relation entries from both ends; EXPANDED brings the related records', async () => {
    const acme = await aRecord(t.app, admin, companies.name, { title: 'Acme', city: 'Oslo' });
    const ada = await aRecord(t.app, admin, people.name, { name: 'Ada', age: 36 });
    await connect(ada.uuid, acme.uuid);

    const plain = await data(t.app, admin, 'GET', `/api/v2/records/${ada.uuid}`);
    expect(plain.relations).toEqual([
      { relationName: 'employer', relationUuid: worksAt.uuid, uuid: acme.uuid, properties: {}, edgeProperties: {}, record: null, objectName: companies.name, primary: true, merge: false },
    ]);
    const expanded = await data(t.app, admin, 'GET', `/api/v2/records/${ada.uuid}?recordReturnFormat=EXPANDED`);
    expect(expanded.relations[0].record).toMatchObject({ uuid: acme.uuid, object: companies.name, properties: { title: 'Acme', city: 'Oslo' } });
    expect(expanded.relations[0].properties).toEqual({ title: 'Acme', city: 'Oslo' });

    const fromCompany = await data(t.app, admin, 'GET', `/api/v2/${companies.name}/${acme.uuid}`);
    expect(fromCompany.relations).toMatchObject([{ relationName: 'staff', uuid: ada.uuid, objectName: people.name, primary: false }]);
  });

  it('filters on a related record\'s property through the relation, in 2.1 filters and 2.4 groups', async () => {
    const paris = await aRecord(t.app, admin, companies.name, { title: 'Paris Co', city: 'Paris' });
    const rome = await aRecord(t.app, admin, companies.name, { title: 'Rome Co', city: 'Rome' });
    const p1 = await aRecord(t.app, admin, people.name, { name: 'In Paris' });
    const p2 = await aRecord(t.app, admin, people.name, { name: 'In Rome' });
    const p3 = await aRecord(t.app, admin, people.name, { name: 'In both' });
    await connect(p1.uuid, paris.uuid);
    await connect(p2.uuid, rome.uuid);
    await connect(p3.uuid, paris.uuid);
    await connect(p3.uuid, rome.uuid);

    const names = (res: { body: Record<string, any> }) => res.body.data.map((r: { properties: { name: string } }) => r.properties.name).sort();
    expect(names(await index(t.app, admin, people.name, { filters: [{ key: 'employer.city', operator: 'equals', value: 'Paris' }] }))).toEqual(['In Paris', 'In both']);
    expect(names(await index(t.app, admin, people.name, { filters: [{ key: 'employer.city', operator: 'notEquals', value: 'Paris' }, { key: 'name', operator: 'startsWith', value: 'in ' }] }))).toEqual(['In Rome']);
    const groups = await index(t.app, admin, people.name, { groups: [{ items: [{ relation: 'employer', property: 'city', operator: 'EQUALS', value: 'Rome' }, { property: 'name', operator: 'ENDS_WITH', value: 'both' }] }] });
    expect(names(groups)).toEqual(['In both']);
    expectErrorBody(await index(t.app, admin, people.name, { filters: [{ key: 'employer.nope', operator: 'equals', value: 'x' }] }), 400);
    expectErrorBody(await index(t.app, admin, people.name, { groups: [{ items: [{ relation: 'nope', property: 'city', operator: 'equals', value: 'x' }] }] }), 400);
  });
});

describe('extended objects (spec 1.4)', () => {
  it('a record extending another object shows in both object contexts, validated and indexed by both', async () => {
    const rec = await data(t.app, admin, 'POST', `/api/v2/${people.name}`, { properties: { name: 'Grace', salary: 100, badge: 'B-1' }, extends: [employees.name] });
    expect(rec.objects).toEqual([people.name, employees.name]);
    expect(rec.properties).toMatchObject({ name: 'Grace', age: null, salary: 100, badge: 'B-1' });
    expect((await data(t.app, admin, 'GET', `/api/v2/${employees.name}/${rec.uuid}`)).uuid).toBe(rec.uuid);
    const inEmployees = await index(t.app, admin, employees.name, { filters: [{ key: 'salary', operator: 'gte', value: 50 }] });
    expect(inEmployees.body.data.map((r: { uuid: string }) => r.uuid)).toEqual([rec.uuid]);
    // A list shows a record as its own read does, whichever object's list it is in.
    expect(inEmployees.body.data[0]).toEqual(await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`));
    expect((await index(t.app, admin, people.name, { filters: [{ key: 'uuid', operator: 'equals', value: rec.uuid }] })).body.data[0]).toEqual(rec);
    // The extended object's unique property holds across its records.
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/${employees.name}`, { properties: { badge: 'B-1' } }), 400, 'VALIDATION');

    const plain = await aRecord(t.app, admin, people.name, { name: 'Later' });
    expect((await call(t.app, admin, 'PUT', `/api/v2/${people.name}/${plain.uuid}`, { properties: { salary: 5 } })).status).toBe(400);
    expect((await call(t.app, admin, 'PUT', `/api/v2/records/${plain.uuid}/objects/${employees.name}`)).status).toBe(200);
    expect((await call(t.app, admin, 'PUT', `/api/v2/${people.name}/${plain.uuid}`, { properties: { salary: 5 } })).status).toBe(200);
    expect((await index(t.app, admin, employees.name, { sort: [{ key: 'salary', direction: 'asc' }] })).body.data.map((r: { uuid: string }) => r.uuid)).toEqual([plain.uuid, rec.uuid]);
    expect((await call(t.app, admin, 'DELETE', `/api/v2/records/${plain.uuid}/objects/${employees.name}`)).status).toBe(200);
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/${employees.name}/${plain.uuid}`), 404);
    expect((await index(t.app, admin, employees.name)).body.total).toBe(1);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/${people.name}`, { properties: { name: 'x' }, extends: ['no_such_object'] }), 404);
  });
});

describe('teams on records', () => {
  it('assigns and unassigns teams; the record shows them; another company cannot', async () => {
    const team = await data(t.app, admin, 'POST', '/api/v2/teams', { name: 'Sales' });
    const rec = await aRecord(t.app, admin, people.name, { name: 'Teamed' });
    const assigned = await call(t.app, admin, 'PUT', `/api/v2/records/${rec.uuid}/teams/${team.uuid}`);
    expect(assigned.status).toBe(200);
    expect(assigned.body.data).toEqual([{ uuid: team.uuid, name: 'Sales' }]);
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).teams).toEqual([{ uuid: team.uuid, name: 'Sales' }]);
    expect((await index(t.app, admin, people.name, { filters: [{ key: 'uuid', operator: 'equals', value: rec.uuid }] })).body.data[0].teams).toEqual([{ uuid: team.uuid, name: 'Sales' }]);
    expect((await call(t.app, admin, 'DELETE', `/api/v2/records/${rec.uuid}/teams/${team.uuid}`)).body.data).toEqual([]);
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).teams).toEqual([]);

    expectErrorBody(await call(t.app, other, 'PUT', `/api/v2/records/${rec.uuid}/teams/${team.uuid}`), 404);
    const user = await joinCompany(t.app, admin, { role: 'USER' });
    expectErrorBody(await call(t.app, user, 'PUT', `/api/v2/records/${rec.uuid}/teams/${team.uuid}`), 403);
  });
});

describe('saved filters', () => {
  it('create, list, read, update, soft delete, restore by PATCH; an index request applies one by uuid', async () => {
    await aRecord(t.app, admin, people.name, { name: 'Young', age: 20 });
    await aRecord(t.app, admin, people.name, { name: 'Old', age: 80 });
    const created = await call(t.app, admin, 'POST', '/api/v2/filters', { name: 'Seniors', objectName: people.name, filters: [{ key: 'age', operator: 'gte', value: 65 }] });
    expect(created.status).toBe(201);
    const f = created.body.data;
    expect(f).toMatchObject({ name: 'Seniors', objectName: people.name, filters: [{ key: 'age', operator: 'gte', value: 65 }], deletedAt: null });

    const applied = await index(t.app, admin, people.name, { savedFilter: f.uuid });
    expect(applied.body.data.map((r: { properties: { name: string } }) => r.properties.name)).toEqual(['Old']);
    const combined = await index(t.app, admin, people.name, { savedFilter: f.uuid, filters: [{ key: 'name', operator: 'equals', value: 'Young' }] });
    expect(combined.body.total).toBe(0);

    expect(await data(t.app, admin, 'GET', `/api/v2/filters/${f.uuid}`)).toEqual(f);
    const updated = await data(t.app, admin, 'PUT', `/api/v2/filters/${f.uuid}`, { filter: { groups: [{ items: [{ property: 'age', operator: 'lt', value: 30 }] }] }, filters: [] });
    expect(updated.groups).toEqual([{ items: [{ property: 'age', operator: 'lt', value: 30 }] }]);
    expect((await index(t.app, admin, people.name, { savedFilter: f.uuid })).body.data.map((r: { properties: { name: string } }) => r.properties.name)).toEqual(['Young']);

    const list = await call(t.app, admin, 'POST', '/api/v2/filters/index', { objectName: people.name });
    expect(list.body).toMatchObject({ total: 1, data: [{ uuid: f.uuid }] });
    expect((await call(t.app, admin, 'DELETE', `/api/v2/filters/${f.uuid}`)).status).toBe(200);
    expect((await call(t.app, admin, 'POST', '/api/v2/filters/index', {})).body.total).toBe(0);
    expect((await call(t.app, admin, 'POST', '/api/v2/filters/index', { deleted: true })).body.total).toBe(1);
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/filters/${f.uuid}`), 404);
    expectErrorBody(await index(t.app, admin, people.name, { savedFilter: f.uuid }), 400);
    const restored = await call(t.app, admin, 'PATCH', `/api/v2/filters/${f.uuid}`);
    expect(restored.status).toBe(200);
    expect(restored.body.data.deletedAt).toBeNull();
    expectErrorBody(await call(t.app, admin, 'PATCH', `/api/v2/filters/${f.uuid}`), 409);

    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/filters', { name: 'Bad', objectName: people.name, filters: [{ key: 'nope', operator: 'equals', value: 1 }] }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/filters', { name: 'Bad', objectName: people.name, filters: [{ key: 'age', operator: 'contains', value: 'x' }] }), 400);
    expectErrorBody(await index(t.app, admin, companies.name, { savedFilter: f.uuid }), 400);
    for (const [method, path] of [['GET', `/api/v2/filters/${f.uuid}`], ['PUT', `/api/v2/filters/${f.uuid}`], ['DELETE', `/api/v2/filters/${f.uuid}`], ['PATCH', `/api/v2/filters/${f.uuid}`]] as const) {
      expectErrorBody(await call(t.app, other, method as 'GET', path, method === 'PUT' ? { name: 'x' } : undefined), 404);
    }
    expect((await call(t.app, other, 'POST', '/api/v2/filters/index', {})).body.total).toBe(0);
  });
});
