import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, call, data, expectErrorBody, index, type TestObject } from './records-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let other: TestTenant;
let people: TestObject;

const options = [
  { value: 'new', label: 'New' },
  { value: 'won', label: 'Won' },
];

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  [admin, other] = await twoTenants(t.app);
  people = await anObjectWith(t.app, admin, {
    name: { required: true, minLength: 2, maxLength: 40 },
    email: { format: 'email', unique: true },
    code: { pattern: '^[A-Z]{2}[0-9]{2}$' },
    age: { type: 'number', format: 'number', min: 0, max: 150 },
    born: { type: 'date', format: 'date' },
    seen: { type: 'datetime', format: 'datetime' },
    stage: { format: 'select', options },
    tags: { format: 'multi-select', options: [{ value: 'a', label: 'Alpha' }, { value: 'b', label: 'Beta' }] },
    vip: { type: 'boolean', format: 'checkbox' },
    site: { format: 'url' },
    meta: { type: 'json', format: 'json' },
  });
});
afterAll(async () => t.close());

const url = (uuid: string, objectName = people.name) => `/api/v2/${objectName}/${uuid}`;

describe('create and read', () => {
  it('creates from a map, answers 201 with the spec 2.2 record, reads it by both routes', async () => {
    const res = await call(t.app, admin, 'POST', `/api/v2/${people.name}/`, { properties: { name: 'Ada', age: 36, born: '1815-12-10', stage: 'new', tags: ['a', 'b', 'a'], vip: true, meta: { k: [1] } } });
    expect(res.status).toBe(201);
    const rec = res.body.data;
    expect(rec).toMatchObject({
      name: 'Ada',
      label: 'Ada',
      object: people.name,
      objects: [people.name],
      deletedAt: null,
      deletedBy: null,
      createdBy: { uuid: admin.userUuid, name: 'Test User' },
      revision: 0,
      relations: [],
      teams: [],
    });
    expect(rec.properties).toEqual({ name: 'Ada', email: null, code: null, age: 36, born: '1815-12-10', seen: null, stage: 'new', tags: ['a', 'b'], vip: true, site: null, meta: { k: [1] } });
    expect(typeof rec.createdAt).toBe('number');
    expect(rec.updatedAt).toBe(rec.createdAt);

    const byRecords = await call(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`);
    expect(byRecords.status).toBe(200);
    expect(byRecords.body.data).toEqual(rec);
    expect(await data(t.app, admin, 'GET', url(rec.uuid))).toEqual(rec);
  });

  it('takes the LEGACY array and answers in every return format and parse mode', async () => {
    const rec = await data(t.app, admin, 'POST', `/api/v2/${people.name}`, {
      properties: [
        { name: 'name', type: 'string', value: 'Grace' },
        { name: 'stage', value: 'won' },
        { name: 'tags', value: ['b'] },
        { name: 'vip', value: false },
        { name: 'seen', value: '2024-05-01T14:00:00+02:00' },
      ],
    });
    expect(rec.properties).toMatchObject({ name: 'Grace', stage: 'won', seen: '2024-05-01T12:00:00.000Z' });

    const legacy = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}?recordReturnFormat=LEGACY&fields=name,stage`);
    expect(legacy.properties).toEqual([
      { name: 'name', type: 'string', value: 'Grace', label: 'name' },
      { name: 'stage', type: 'string', value: 'won', label: 'stage' },
    ]);
    const human = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}?parse=true&fields=stage,tags,vip,age`);
    expect(human.properties).toEqual({ stage: 'Won', tags: 'Beta', vip: 'No', age: null });
    const structured = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}?parse=structured&fields=stage`);
    expect(structured.properties).toEqual({ stage: { value: 'won', display: 'Won', type: 'string', format: 'select', label: 'stage' } });
    const expanded = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}?recordReturnFormat=EXPANDED&object=${people.name}`);
    expect(expanded.uuid).toBe(rec.uuid);
  });

  it('takes a client uuid once: the second create with it is a 409', async () => {
    const uuid = '2a4b6c8d-0000-4000-8000-000000000001';
    const first = await call(t.app, admin, 'POST', `/api/v2/${people.name}`, { uuid, properties: { name: 'Client id' } });
    expect(first.status).toBe(201);
    expect(first.body.data.uuid).toBe(uuid);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/${people.name}`, { uuid, properties: { name: 'Again' } }), 409);
  });
});

describe('update, archive, restore', () => {
  it('PUT sets the sent properties, null clears one, the rest stay; nothing to change appends nothing', async () => {
    const rec = await aRecord(t.app, admin, people.name, { name: 'Alan', age: 41, stage: 'new' });
    const res = await call(t.app, admin, 'PUT', `/api/v2/records/${rec.uuid}`, { properties: { age: 42, stage: null } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'updated', data: null });
    const after = await data(t.app, admin, 'GET', url(rec.uuid));
    expect(after.properties).toMatchObject({ name: 'Alan', age: 42, stage: null });
    expect(after.revision).toBe(1);
    expect(after.updatedAt).toBeGreaterThanOrEqual(rec.updatedAt);
    const same = await call(t.app, admin, 'PUT', url(rec.uuid), { ...after, properties: { age: 42 } });
    expect(same.body.message).toBe('unchanged');
    expect((await data(t.app, admin, 'GET', url(rec.uuid))).revision).toBe(1);
  });

  it('DELETE archives: 200 by uuid with deletedAt, left out of lists unless asked; restore brings it back unchanged', async () => {
    const rec = await aRecord(t.app, admin, people.name, { name: 'Archie', age: 7 });
    const del = await call(t.app, admin, 'DELETE', url(rec.uuid));
    expect(del.status).toBe(200);
    expect(typeof del.body.data).toBe('string');

    const read = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`);
    expect(read.deletedAt).toEqual(expect.any(Number));
    expect(read.deletedBy).toMatchObject({ uuid: admin.userUuid });
    expect(read.properties).toEqual(rec.properties);

    const only = { filters: [{ key: 'name', operator: 'equals', value: 'Archie' }] };
    expect((await index(t.app, admin, people.name, only)).body.total).toBe(0);
    const archived = await index(t.app, admin, people.name, { ...only, archived: 'only' });
    expect(archived.body.data.map((r: { uuid: string }) => r.uuid)).toEqual([rec.uuid]);
    expect((await index(t.app, admin, people.name, { ...only, archived: 'include' })).body.total).toBe(1);

    expectErrorBody(await call(t.app, admin, 'PUT', url(rec.uuid), { properties: { age: 8 } }), 409);
    expectErrorBody(await call(t.app, admin, 'DELETE', `/api/v2/records/${rec.uuid}?mode=archive`), 409);

    const restored = await call(t.app, admin, 'POST', `/api/v2/records/${rec.uuid}/restore`);
    expect(restored.status).toBe(200);
    const back = await data(t.app, admin, 'GET', url(rec.uuid));
    expect(back).toMatchObject({ deletedAt: null, deletedBy: null, properties: rec.properties });
    expect((await index(t.app, admin, people.name, only)).body.total).toBe(1);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/${people.name}/${rec.uuid}/restore`), 409);
  });
});

describe('validation', () => {
  const create = (properties: unknown, query = '') => call(t.app, admin, 'POST', `/api/v2/${people.name}${query}`, { properties });
  const types = (res: { body: Record<string, any> }) => res.body.errors.map((e: { type: string }) => e.type);

  it('required, length, range, pattern: 400 with a correction suggestion for each', async () => {
    const res = await create({ name: 'A', age: 200, code: 'x1' });
    expectErrorBody(res, 400, 'INVALID_VALUE');
    expect(res.body.errors).toHaveLength(3);
    expect(res.body.errors.map((e: { message: string }) => e.message).join(' | ')).toMatch(/name.*fewer than 2.*age.*above the maximum 150.*code.*pattern/);
    const missing = await create({ age: 3 });
    expectErrorBody(missing, 400, 'VALIDATION');
    expect(missing.body.errors[0].message).toContain('name');
    expectErrorBody(await call(t.app, admin, 'PUT', url((await aRecord(t.app, admin, people.name, { name: 'Req' })).uuid), { properties: { name: null } }), 400, 'VALIDATION');
  });

  it('formats: e-mail, date, date-time, options, unknown property, wrong types', async () => {
    expect(types(await create({ name: 'Bo', email: 'not-an-email' }))).toEqual(['INVALID_EMAIL']);
    expect(types(await create({ name: 'Bo', born: '2024-02-30' }))).toEqual(['INVALID_DATE']);
    expect(types(await create({ name: 'Bo', seen: '2024-05-01T10:00:00' }))).toEqual(['INVALID_DATE']);
    expect(types(await create({ name: 'Bo', stage: 'lost' }))).toEqual(['INVALID_VALUE']);
    expect(types(await create({ name: 'Bo', tags: ['zzz'] }))).toEqual(['INVALID_VALUE']);
    expect(types(await create({ name: 'Bo', nickname: 'x' }))).toEqual(['VALIDATION']);
    expect(types(await create({ name: 'Bo', age: '3' }))).toEqual(['INVALID_VALUE']);
    expect(types(await create({ name: 'Bo', vip: 'yes' }))).toEqual(['INVALID_VALUE']);
    expect(types(await create({ name: 'Bo', site: 'ftp://x' }))).toEqual(['INVALID_VALUE']);
    const bad = await create({ name: 'Bo', stage: 'lost' });
    expect(bad.body.errors[0].correctionSuggestion).toContain('new, won');
  });

  it('ignoreErrors=true skips the non-critical errors, never the critical ones', async () => {
    const soft = await create({ name: 'B', email: 'nope', stage: 'lost', age: 999, nickname: 'dropped' }, '?ignoreErrors=true');
    expect(soft.status).toBe(201);
    expect(soft.body.data.properties).toMatchObject({ name: 'B', email: 'nope', stage: 'lost', age: 999 });
    expect(soft.body.data.properties).not.toHaveProperty('nickname');
    expectErrorBody(await create({ name: 'Bo', born: 'yesterday' }, '?ignoreErrors=true'), 400, 'INVALID_DATE');
    expectErrorBody(await create({ name: 'Bo', age: 'three' }, '?ignoreErrors=true'), 400, 'INVALID_VALUE');
  });

  it('unique: a taken value is a 400; of concurrent creates with one value exactly one wins', async () => {
    await aRecord(t.app, admin, people.name, { name: 'Uno', email: 'uno@example.com' });
    const dup = await create({ name: 'Dos', email: 'UNO@example.com' });
    expectErrorBody(dup, 400, 'VALIDATION');
    expect(dup.body.errors[0].message).toContain('email');

    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create({ name: `Racer ${i}`, email: 'race@example.com' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(7);
    const holders = await index(t.app, admin, people.name, { filters: [{ key: 'email', operator: 'equals', value: 'race@example.com' }] });
    expect(holders.body.total).toBe(1);

    // A record can take a value another record gave up.
    const freed = await aRecord(t.app, admin, people.name, { name: 'Free', email: 'free@example.com' });
    await data(t.app, admin, 'PUT', url(freed.uuid), { properties: { email: 'freed@example.com' } });
    expect((await create({ name: 'Taker', email: 'free@example.com' })).status).toBe(201);
  });

  it('refuses NUL, prototype keys, control characters and oversized values with 400, never 500', async () => {
    expectErrorBody(await create({ name: 'Nul\u0000' }), 400, 'INVALID_VALUE');
    expectErrorBody(await create({ name: 'Ctl\u0001' }), 400, 'INVALID_VALUE');
    expectErrorBody(await create({ name: 'Bo', meta: { a: 'x\u0000' } }), 400, 'INVALID_VALUE');
    const proto = await t.app.inject({ method: 'POST', url: `/api/v2/${people.name}`, headers: { ...admin.headers, 'content-type': 'application/json' }, payload: '{"properties": {"name": "P", "__proto__": {"polluted": true}}}' });
    expect(proto.statusCode).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectErrorBody(await create({ name: 'P', meta: { constructor: { prototype: 1 } } }), 400);
    expectErrorBody(await create({ name: 'x'.repeat(10_001) }), 400);
    expectErrorBody(await create({ name: 'Bo', meta: { deep: JSON.parse('['.repeat(30) + ']'.repeat(30)) } }), 400, 'INVALID_VALUE');
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/${people.name}/index`, { filters: [{ key: 'name', operator: 'contains', value: 'a\u0000' }] }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/${people.name}/index`, { query: 'a\u0000' }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/${people.name}`, { properties: 'nope' }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', `/api/v2/${people.name}`, { properties: {}, bogus: 1 }), 400);
  });
});

describe('routes and tenancy', () => {
  it('another company sees nothing: 404 on read, update, delete, restore, history; absent from its lists and totals', async () => {
    const rec = await aRecord(t.app, admin, people.name, { name: 'Secret' });
    for (const [method, path] of [
      ['GET', `/api/v2/records/${rec.uuid}`],
      ['PUT', `/api/v2/records/${rec.uuid}`],
      ['DELETE', `/api/v2/records/${rec.uuid}`],
      ['POST', `/api/v2/records/${rec.uuid}/restore`],
      ['GET', `/api/v2/records/${rec.uuid}/history`],
      ['GET', `/api/v2/records/${rec.uuid}?asOf=0`],
    ] as const) {
      expectErrorBody(await call(t.app, other, method, path, method === 'PUT' ? { properties: { name: 'x' } } : undefined), 404, 'NOT_FOUND');
    }
    // The other company has no such object; with an object of the same name, still nothing of ours.
    expectErrorBody(await call(t.app, other, 'GET', url(rec.uuid)), 404);
    const theirs = await anObjectWith(t.app, other, { name: {} }, people.name);
    expectErrorBody(await call(t.app, other, 'GET', url(rec.uuid)), 404);
    await aRecord(t.app, other, theirs.name, { name: 'Theirs' });
    const list = await index(t.app, other, people.name);
    expect(list.body.total).toBe(1);
    expect(list.body.data.map((r: { properties: { name: string } }) => r.properties.name)).toEqual(['Theirs']);
    expect((await index(t.app, other, people.name, { filters: [{ key: 'name', operator: 'equals', value: 'Secret' }] })).body.total).toBe(0);
    expect((await index(t.app, other, people.name, { query: 'Secret' })).body.total).toBe(0);
  });

  it('object routes never shadow other groups; unknown objects and reserved names are 404', async () => {
    const some = '7d1e2f3a-0000-4000-8000-000000000009';
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/auth/${some}`), 404);
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/nothing_here/${some}`), 404);
    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/nothing_here/index', {}), 404);
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/${people.name}`), 404);
    expect((await call(t.app, admin, 'GET', '/api/v2/auth/me')).status).toBe(200);
    expectErrorBody(await call(t.app, null, 'GET', url(some)), 401);
    const rec = await aRecord(t.app, admin, people.name, { name: 'Elsewhere' });
    const another = await anObjectWith(t.app, admin, { name: {} });
    expectErrorBody(await call(t.app, admin, 'GET', url(rec.uuid, another.name)), 404);
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}?object=${another.name}`), 404);
    expectErrorBody(await call(t.app, admin, 'GET', '/api/v2/records/not-a-uuid'), 400);
  });

  it('a member without the ADMIN role reads and writes records', async () => {
    const { joinCompany } = await import('../support/actors.js');
    const user = await joinCompany(t.app, admin, { role: 'USER' });
    const rec = await aRecord(t.app, user, people.name, { name: 'By a user' });
    expect(rec.createdBy.uuid).toBe(user.userUuid);
    const fresh = await signUpWithCompany(t.app);
    expectErrorBody(await call(t.app, fresh, 'GET', url(rec.uuid)), 404);
  });
});
