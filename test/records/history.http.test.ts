import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUp, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, call, data, expectErrorBody, type TestObject } from './records-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let other: TestTenant;
let obj: TestObject;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', SUPER_ADMIN_EMAILS: 'root@records.test' });
  admin = await signUpWithCompany(t.app);
  other = await signUpWithCompany(t.app);
  obj = await anObjectWith(t.app, admin, { title: {}, n: { type: 'number', format: 'number' } });
});
afterAll(async () => t.close());

const traced = (who: TestTenant, method: 'POST' | 'PUT' | 'DELETE', url: string, requestId: string, payload?: unknown) =>
  t.app.inject({ method, url, headers: { ...who.headers, 'x-request-id': requestId }, payload: payload as Record<string, unknown> | undefined });

const pause = () => new Promise((r) => setTimeout(r, 5));

describe('history and time travel', () => {
  it('lists every event newest first with before/after, who, when and the requestId; asOf a revision or a time', async () => {
    const created = await traced(admin, 'POST', `/api/v2/${obj.name}`, 'trace-create-1', { properties: { title: 'First', n: 1 } });
    expect(created.statusCode).toBe(201);
    const uuid = created.json().data.uuid as string;
    await pause();
    const between = Date.now();
    await pause();
    expect((await traced(admin, 'PUT', `/api/v2/records/${uuid}`, 'trace-update-1', { properties: { n: 2 } })).statusCode).toBe(200);
    expect((await traced(admin, 'PUT', `/api/v2/records/${uuid}`, 'trace-update-2', { properties: { title: 'Second', n: null } })).statusCode).toBe(200);
    expect((await traced(admin, 'DELETE', `/api/v2/records/${uuid}`, 'trace-archive')).statusCode).toBe(200);
    expect((await call(t.app, admin, 'POST', `/api/v2/records/${uuid}/restore`)).status).toBe(200);

    const history = await call(t.app, admin, 'GET', `/api/v2/records/${uuid}/history`);
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ total: 5, page: 0, perPage: 25, lastPage: 0 });
    const entries = history.body.data;
    expect(entries.map((e: { type: string }) => e.type)).toEqual(['RecordRestored', 'RecordArchived', 'RecordUpdated', 'RecordUpdated', 'RecordCreated']);
    expect(entries.map((e: { revision: number }) => e.revision)).toEqual([4, 3, 2, 1, 0]);
    expect(entries[2]).toMatchObject({ requestId: 'trace-update-2', changes: { title: { before: 'First', after: 'Second' }, n: { before: 2, after: null } }, user: { uuid: admin.userUuid, name: 'Test User' } });
    expect(entries[3]).toMatchObject({ requestId: 'trace-update-1', changes: { n: { before: 1, after: 2 } } });
    expect(entries[4]).toMatchObject({ requestId: 'trace-create-1', changes: { title: { before: null, after: 'First' }, n: { before: null, after: 1 } } });
    expect(entries[1]).toMatchObject({ requestId: 'trace-archive', data: { mode: 'archive' } });
    for (const e of entries) expect(typeof e.occurredAt).toBe('number');

    const page2 = await call(t.app, admin, 'GET', `/api/v2/records/${uuid}/history?limit=2&page=1`);
    expect(page2.body).toMatchObject({ total: 5, page: 1, perPage: 2, lastPage: 2 });
    expect(page2.body.data.map((e: { revision: number }) => e.revision)).toEqual([2, 1]);
    expect((await call(t.app, admin, 'GET', `/api/v2/records/${uuid}/history?limit=2&page=3`)).body.data).toEqual([]);

    const at = async (asOf: string) => data(t.app, admin, 'GET', `/api/v2/records/${uuid}?asOf=${encodeURIComponent(asOf)}`);
    expect((await at('0')).properties).toEqual({ title: 'First', n: 1 });
    expect((await at('0')).revision).toBe(0);
    expect((await at('1')).properties).toEqual({ title: 'First', n: 2 });
    expect((await at('2')).properties).toEqual({ title: 'Second', n: null });
    const archived = await at('3');
    expect(archived.deletedAt).toEqual(expect.any(Number));
    expect(archived.deletedBy).toMatchObject({ uuid: admin.userUuid });
    expect((await at('4')).deletedAt).toBeNull();
    expect((await at('99')).revision).toBe(4);
    expect((await at(new Date(between).toISOString())).properties).toEqual({ title: 'First', n: 1 });
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/records/${uuid}?asOf=${encodeURIComponent('2000-01-01T00:00:00Z')}`), 404, 'NOT_FOUND');
    expectErrorBody(await call(t.app, admin, 'GET', `/api/v2/records/${uuid}?asOf=yesterday`), 400, 'INVALID_DATE');
    expectErrorBody(await call(t.app, other, 'GET', `/api/v2/records/${uuid}/history`), 404);
  });
});

describe('the event log', () => {
  it('traces one request through everything it caused, for ADMIN only, within the company', async () => {
    const created = await traced(admin, 'POST', `/api/v2/${obj.name}`, 'support-trace-77', { properties: { title: 'Traced' } });
    const uuid = created.json().data.uuid as string;
    await traced(other, 'POST', '/api/v2/objects', 'support-trace-77', { name: 'elsewhere', label: 'Elsewhere' });

    const res = await call(t.app, admin, 'POST', '/api/v2/events/index', { filters: [{ key: 'requestId', operator: 'equals', value: 'support-trace-77' }] });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.data[0]).toMatchObject({ streamId: `record-${uuid}`, type: 'RecordCreated', requestId: 'support-trace-77', correlationId: 'support-trace-77', userUuid: admin.userUuid, tenant: admin.companyUuid, revision: 0 });

    const byStream = await call(t.app, admin, 'POST', '/api/v2/events/index', { filters: [{ key: 'stream', operator: 'equals', value: `record-${uuid}` }, { key: 'type', operator: 'in', value: ['RecordCreated', 'RecordUpdated'] }] });
    expect(byStream.body.total).toBe(1);
    const since = await call(t.app, admin, 'POST', '/api/v2/events/index', { filters: [{ key: 'stream', operator: 'equals', value: 'record-*' }, { key: 'occurredAt', operator: 'gte', value: new Date(Date.now() + 60_000).toISOString() }] });
    expect(since.body.total).toBe(0);
    const mine = await call(t.app, admin, 'POST', '/api/v2/events/index', { filters: [{ key: 'userUuid', operator: 'equals', value: admin.userUuid }], limit: 5 });
    expect(mine.body.data.length).toBe(5);
    expect(mine.body.data.every((e: { tenant: string }) => e.tenant === admin.companyUuid)).toBe(true);

    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/events/index', { filters: [{ key: 'payload', operator: 'equals', value: 'x' }] }), 400);
    expectErrorBody(await call(t.app, admin, 'POST', '/api/v2/events/index', { filters: [{ key: 'tenant', operator: 'equals', value: other.companyUuid }] }), 400);
    const user = await joinCompany(t.app, admin, { role: 'USER' });
    const forbidden = await call(t.app, user, 'POST', '/api/v2/events/index', {});
    expectErrorBody(forbidden, 403);
    expect(forbidden.body.roles).toEqual(['ADMIN']);
  });

  it('a SUPER_ADMIN searches across companies', async () => {
    const root = await signUp(t.app, { email: 'root@records.test' });
    const dev = await joinCompany(t.app, admin, { role: 'DEVELOPER' });
    const outbox = (await call(t.app, dev, 'GET', '/api/v2/dev/mail')).body.data as { to: string; text: string }[];
    const token = /token: (\S+)$/m.exec(outbox.find((m) => m.to === 'root@records.test')!.text)![1];
    expect((await call(t.app, null, 'POST', '/api/v2/auth/verify', { token })).status).toBe(200);
    await data(t.app, root, 'POST', `/api/v2/auth/companies/${admin.companyUuid}/select`);
    await traced(other, 'POST', '/api/v2/objects', 'cross-company-1', { name: 'cross_a', label: 'A' });
    await traced(admin, 'POST', `/api/v2/${obj.name}`, 'cross-company-1', { properties: { title: 'B' } });
    const res = await call(t.app, root, 'POST', '/api/v2/events/index', { filters: [{ key: 'requestId', operator: 'equals', value: 'cross-company-1' }] });
    expect(res.status).toBe(200);
    expect(new Set(res.body.data.map((e: { tenant: string }) => e.tenant))).toEqual(new Set([admin.companyUuid, other.companyUuid]));
    const one = await call(t.app, root, 'POST', '/api/v2/events/index', { filters: [{ key: 'requestId', operator: 'equals', value: 'cross-company-1' }, { key: 'tenant', operator: 'equals', value: other.companyUuid }] });
    expect(one.body.data.map((e: { tenant: string }) => e.tenant)).toEqual([other.companyUuid]);
  });
});

describe('concurrency', () => {
  it('If-Match and expectedRevision make an update conditional: a mismatch is 409 with the error body', async () => {
    const rec = await aRecord(t.app, admin, obj.name, { title: 'Cond', n: 0 });
    const get = await t.app.inject({ method: 'GET', url: `/api/v2/records/${rec.uuid}`, headers: admin.headers });
    expect(get.headers.etag).toBe('"0"');
    const ok = await t.app.inject({ method: 'PUT', url: `/api/v2/records/${rec.uuid}`, headers: { ...admin.headers, 'if-match': '"0"' }, payload: { properties: { n: 1 } } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.etag).toBe('"1"');
    const stale = await t.app.inject({ method: 'PUT', url: `/api/v2/records/${rec.uuid}`, headers: { ...admin.headers, 'if-match': '"0"' }, payload: { properties: { n: 2 } } });
    expectErrorBody({ status: stale.statusCode, body: stale.json() }, 409);
    expectErrorBody(await call(t.app, admin, 'PUT', `/api/v2/records/${rec.uuid}`, { expectedRevision: 0, properties: { n: 3 } }), 409);
    expect((await call(t.app, admin, 'PUT', `/api/v2/records/${rec.uuid}`, { expectedRevision: 1, properties: { n: 3 } })).status).toBe(200);
    const bad = await t.app.inject({ method: 'PUT', url: `/api/v2/records/${rec.uuid}`, headers: { ...admin.headers, 'if-match': 'yesterday' }, payload: { properties: { n: 4 } } });
    expect(bad.statusCode).toBe(400);
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).properties.n).toBe(3);
  });

  it('20 concurrent updates of one record: every 2xx is exactly one event, and the final read is the last acknowledged write', async () => {
    const rec = await aRecord(t.app, admin, obj.name, { title: 'Hot', n: -1 });
    const acknowledged: { n: number; at: number }[] = [];
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await call(t.app, admin, 'PUT', `/api/v2/records/${rec.uuid}`, { properties: { n: i } });
        if (res.status === 200) acknowledged.push({ n: i, at: acknowledged.length });
        return res.status;
      }),
    );
    expect(results.every((s) => s === 200 || s === 409)).toBe(true);
    const ok = results.filter((s) => s === 200).length;
    const history = await call(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}/history?limit=100`);
    const updates = history.body.data.filter((e: { type: string }) => e.type === 'RecordUpdated');
    expect(updates).toHaveLength(ok);
    expect(new Set(updates.map((e: { changes: { n: { after: number } } }) => e.changes.n.after))).toEqual(new Set(acknowledged.map((a) => a.n)));
    // The newest event is the last write the server acknowledged, and the read model shows it.
    const last = updates[0].changes.n.after;
    const read = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`);
    expect(read.properties.n).toBe(last);
    expect(read.revision).toBe(ok);
    expect(ok).toBe(20);
  });
});
