import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aProperty } from '../schema/schema-fixtures.js';
import { aRecord, anObjectWith, call, expectErrorBody, index, type TestObject } from './records-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let other: TestTenant;
let obj: TestObject;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await signUp(t.app).then(() => signUpWithCompany(t.app));
  other = await signUpWithCompany(t.app);
  obj = await anObjectWith(t.app, admin, { title: {}, n: { type: 'number', format: 'number' } });
});
afterAll(async () => t.close());

/** The company's last log position now (POST events/index, newest first). */
async function head(who: TestTenant): Promise<number> {
  const res = await call(t.app, who, 'POST', '/api/v2/events/index', { limit: 1, sort: [{ key: 'occurredAt', direction: 'desc' }] });
  return Math.max(...(res.body.data as { position: number }[]).map((e) => e.position));
}

const pause = () => new Promise((r) => setTimeout(r, 5));
const titles = (res: { body: Record<string, any> }) => (res.body.data as { properties: { title?: string } }[]).map((r) => r.properties.title);

describe('POST /{objectName}/index with asOf', () => {
  it('answers the page, total included, as it was at a log position or a time, and says which position', async () => {
    const a = await aRecord(t.app, admin, obj.name, { title: 'A', n: 1 });
    const b = await aRecord(t.app, admin, obj.name, { title: 'B', n: 2 });
    const p1 = await head(admin);
    await pause();
    const t1 = Date.now();
    await pause();
    await call(t.app, admin, 'PUT', `/api/v2/${obj.name}/${a.uuid}`, { properties: { title: 'A2', n: 5 } });
    await call(t.app, admin, 'DELETE', `/api/v2/${obj.name}/${b.uuid}`);
    await aRecord(t.app, admin, obj.name, { title: 'C', n: 3 });
    await aProperty(t.app, admin, obj.uuid, { name: 'later', label: 'Later' });
    const p2 = await head(admin);

    const sort = [{ key: 'n', direction: 'asc' }];
    const now = await index(t.app, admin, obj.name, { sort });
    expect(titles(now)).toEqual(['C', 'A2']);
    expect(now.body.asOf).toBeUndefined();

    const then = await index(t.app, admin, obj.name, { sort, asOf: String(p1) });
    expect(then.status).toBe(200);
    expect(titles(then)).toEqual(['A', 'B']);
    expect(then.body).toMatchObject({ total: 2, page: 0, perPage: 25, lastPage: 0, asOf: { position: p1, time: null } });
    expect(then.body.data[0]).toMatchObject({ uuid: a.uuid, object: obj.name, revision: 0, deletedAt: null, properties: { title: 'A', n: 1 }, createdBy: { uuid: admin.userUuid } });
    // The schema as it was: the property added later is not there, and is not a key a filter may name.
    expect(Object.keys(then.body.data[0].properties).sort()).toEqual(['n', 'title']);
    expectErrorBody(await index(t.app, admin, obj.name, { asOf: String(p1), filters: [{ key: 'later', operator: 'isnull' }] }), 400);

    const byTime = await index(t.app, admin, obj.name, { sort, asOf: new Date(t1).toISOString() });
    expect(titles(byTime)).toEqual(['A', 'B']);
    expect(byTime.body.asOf).toEqual({ position: p1, time: t1 });

    // At the head, asOf answers what the list answers now; archived ones as they were.
    const atHead = await index(t.app, admin, obj.name, { sort, asOf: String(p2) });
    expect(atHead.body.data).toEqual(now.body.data);
    const archived = await index(t.app, admin, obj.name, { archived: 'only', asOf: String(p2) });
    expect(archived.body.data.map((r: { uuid: string; deletedAt: number | null }) => [r.uuid, typeof r.deletedAt])).toEqual([[b.uuid, 'number']]);
    const filtered = await index(t.app, admin, obj.name, { asOf: String(p1), filters: [{ key: 'n', operator: 'gte', value: 2 }] });
    expect(titles(filtered)).toEqual(['B']);
    const paged = await index(t.app, admin, obj.name, { sort, asOf: String(p1), limit: 1, page: 1 });
    expect(paged.body).toMatchObject({ total: 2, page: 1, perPage: 1, lastPage: 1 });
    expect(titles(paged)).toEqual(['B']);
    const before = await index(t.app, admin, obj.name, { asOf: '2001-01-01T00:00:00Z' });
    expect(before.body).toMatchObject({ total: 0, data: [], asOf: { position: 0 } });
  });

  it('refuses a bad asOf, a future one, one past the log, free text and relation conditions with the error body', async () => {
    expectErrorBody(await index(t.app, admin, obj.name, { asOf: 'yesterday' }), 400, 'INVALID_DATE');
    expectErrorBody(await index(t.app, admin, obj.name, { asOf: '2999-01-01T00:00:00Z' }), 400);
    expectErrorBody(await index(t.app, admin, obj.name, { asOf: String((await head(admin)) + 1_000_000) }), 400);
    expectErrorBody(await index(t.app, admin, obj.name, { asOf: '1', query: 'word' }), 400);
    expectErrorBody(await index(t.app, admin, obj.name, { asOf: '1', filters: [{ key: 'friends.title', operator: 'isnull' }] }), 400);
    expectErrorBody(await index(t.app, admin, obj.name, { asOf: 5 }), 400);
    const res = await index(t.app, admin, obj.name, { asOf: 'yesterday' });
    expect(res.body.errors[0].correctionSuggestion).toMatch(/log position/);
  });

  it('401 without a token, 403 without a selected company, 404 for an unknown object, another company\'s object, and its records never', async () => {
    const p = String(await head(admin));
    expectErrorBody(await call(t.app, null, 'POST', `/api/v2/${obj.name}/index`, { asOf: p }), 401);
    const loner = await signUp(t.app);
    expectErrorBody(await index(t.app, loner as TestTenant, obj.name, { asOf: p }), 403);
    expectErrorBody(await index(t.app, admin, 'no_such_object', { asOf: p }), 404);
    // The other company has no object of that name: the same 404, whatever asOf.
    expectErrorBody(await index(t.app, other, obj.name, { asOf: p }), 404);
    const mine = await anObjectWith(t.app, other, { title: {} }, obj.name);
    await aRecord(t.app, other, mine.name, { title: 'Theirs' });
    const theirs = await index(t.app, other, obj.name, { asOf: String(await head(other)) });
    expect(titles(theirs)).toEqual(['Theirs']);
    const ours = await index(t.app, admin, obj.name, { asOf: String(await head(admin)), archived: 'include' });
    expect(titles(ours)).not.toContain('Theirs');
    expect(ours.body.total).toBe(3);
  });
});
