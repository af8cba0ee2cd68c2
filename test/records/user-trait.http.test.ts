import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aRecord, anObjectWith, call, data, expectErrorBody, index, type TestObject } from './records-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let other: TestTenant;
let people: TestObject;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  admin = await signUpWithCompany(t.app);
  other = await signUpWithCompany(t.app);
  people = await anObjectWith(t.app, admin, { name: {}, email: { format: 'email' } });
  await data(t.app, admin, 'POST', `/api/v2/traits/${people.uuid}/User`, { emailProperty: 'email' });
});
afterAll(async () => t.close());

const linkUrl = (uuid: string) => `/api/v2/records/${uuid}/user`;
const historyOf = async (uuid: string) => (await call(t.app, admin, 'GET', `/api/v2/records/${uuid}/history?limit=100`)).body.data as { type: string; data: Record<string, unknown> }[];

describe('User trait: a record is the profile of a member of the company', () => {
  it('links by the e-mail property on create: the record answers the user object on create, read and index, and keeps the link in its history', async () => {
    const member = await joinCompany(t.app, admin, { role: 'USER', scopes: ['members:read'] });
    const rec = await aRecord(t.app, admin, people.name, { name: 'Member', email: member.email.toUpperCase() });
    const user = { uuid: member.userUuid, email: member.email, firstname: 'Test', lastname: 'User', initials: 'TU', role: 'USER', scopes: ['members:read'], filters: {}, record: null };
    expect(rec.user).toEqual(user);
    expect(rec.revision).toBe(1);
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).user).toEqual(user);
    const page = await index(t.app, admin, people.name, { page: 0, filters: [{ key: 'name', operator: 'equals', value: 'Member' }] });
    expect(page.body.data.map((r: { user: unknown }) => r.user)).toEqual([user]);
    const events = await historyOf(rec.uuid);
    expect(events.map((e) => e.type)).toEqual(['RecordUserLinked', 'RecordCreated']);
    expect(events[0]!.data).toMatchObject({ userUuid: member.userUuid, via: 'email' });
    // The revision moved with the link: an update with If-Match on it goes through.
    const res = await t.app.inject({ method: 'PUT', url: `/api/v2/records/${rec.uuid}`, headers: { ...admin.headers, 'if-match': '"1"' }, payload: { properties: { name: 'Member 2' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).user).toEqual(user);
  });

  it('never links another company\'s user: not by e-mail, not explicitly (the same 404 as no user)', async () => {
    const rec = await aRecord(t.app, admin, people.name, { name: 'Outsider', email: other.email });
    expect(rec.user).toBeNull();
    expectErrorBody(await call(t.app, admin, 'PUT', linkUrl(rec.uuid), { userUuid: other.userUuid }), 404);
    expectErrorBody(await call(t.app, admin, 'PUT', linkUrl(rec.uuid), {}), 404);
    expectErrorBody(await call(t.app, admin, 'PUT', linkUrl(rec.uuid), { userUuid: '00000000-0000-4000-8000-000000000000' }), 404);
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).user).toBeNull();
    expect((await historyOf(rec.uuid)).map((e) => e.type)).toEqual(['RecordCreated']);
    // And the other company cannot reach this company's record at all.
    expectErrorBody(await call(t.app, other, 'PUT', linkUrl(rec.uuid), { userUuid: other.userUuid }), 404);
    expectErrorBody(await call(t.app, other, 'DELETE', linkUrl(rec.uuid)), 404);
  });

  it('links and unlinks explicitly (ADMIN only); one record per user: a second link is 409', async () => {
    const member = await joinCompany(t.app, admin, { role: 'USER' });
    const rec = await aRecord(t.app, admin, people.name, { name: 'No e-mail' });
    expect(rec.user).toBeNull();
    expectErrorBody(await call(t.app, member, 'PUT', linkUrl(rec.uuid), { userUuid: member.userUuid }), 403);
    const linked = await data(t.app, admin, 'PUT', linkUrl(rec.uuid), { userUuid: member.userUuid });
    expect(linked.user).toMatchObject({ uuid: member.userUuid, role: 'USER' });
    // Again: nothing happens.
    expect((await data(t.app, admin, 'PUT', linkUrl(rec.uuid), { userUuid: member.userUuid })).revision).toBe(linked.revision);

    const second = await aRecord(t.app, admin, people.name, { name: 'Same e-mail', email: member.email });
    expect(second.user).toBeNull();
    const taken = await call(t.app, admin, 'PUT', linkUrl(second.uuid), { userUuid: member.userUuid });
    expectErrorBody(taken, 409);
    expect(taken.body.message).toContain(rec.uuid);

    const unlinked = await data(t.app, admin, 'DELETE', linkUrl(rec.uuid));
    expect(unlinked.user).toBeNull();
    // Now free: the second record links by its e-mail.
    expect((await data(t.app, admin, 'PUT', linkUrl(second.uuid), {})).user).toMatchObject({ uuid: member.userUuid });
    expect((await historyOf(rec.uuid)).map((e) => [e.type, e.data.via])).toEqual([
      ['RecordUserUnlinked', 'explicit'],
      ['RecordUserLinked', 'explicit'],
      ['RecordCreated', undefined],
    ]);
  });

  it('two links of one user racing on two records: one wins, the other is 409 (the unique index holds on PostgreSQL)', async () => {
    const member = await joinCompany(t.app, admin);
    const [r1, r2] = [await aRecord(t.app, admin, people.name, { name: 'Race 1' }), await aRecord(t.app, admin, people.name, { name: 'Race 2' })];
    const answers = await Promise.all([r1, r2].map((r) => call(t.app, admin, 'PUT', linkUrl(r.uuid), { userUuid: member.userUuid })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const users = await Promise.all([r1, r2].map(async (r) => (await data(t.app, admin, 'GET', `/api/v2/records/${r.uuid}`)).user?.uuid ?? null));
    expect(users.filter((u) => u === member.userUuid)).toHaveLength(1);
  });

  it('follows the e-mail property: a change moves the link or ends it; asOf shows the user of then', async () => {
    const [a, b] = [await joinCompany(t.app, admin), await joinCompany(t.app, admin)];
    const rec = await aRecord(t.app, admin, people.name, { name: 'Mover', email: a.email });
    expect(rec.user.uuid).toBe(a.userUuid);
    await data(t.app, admin, 'PUT', `/api/v2/records/${rec.uuid}`, { properties: { email: b.email } });
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).user.uuid).toBe(b.userUuid);
    await data(t.app, admin, 'PUT', `/api/v2/records/${rec.uuid}`, { properties: { email: 'nobody@example.test' } });
    const now = await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`);
    expect(now.user).toBeNull();
    expect((await historyOf(rec.uuid)).map((e) => [e.type, e.data.userUuid ?? null])).toEqual([
      ['RecordUserUnlinked', b.userUuid],
      ['RecordUpdated', null],
      ['RecordUserLinked', b.userUuid],
      ['RecordUpdated', null],
      ['RecordUserLinked', a.userUuid],
      ['RecordCreated', null],
    ]);
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}?asOf=1`)).user).toMatchObject({ uuid: a.userUuid });
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}?asOf=0`)).user).toBeNull();
  });

  it('a user who leaves the company: the link stays in the history, `user` answers null, and shows again when they rejoin', async () => {
    const leaver = await joinCompany(t.app, admin, { role: 'DEVELOPER' });
    const rec = await aRecord(t.app, admin, people.name, { name: 'Leaver', email: leaver.email });
    expect(rec.user).toMatchObject({ uuid: leaver.userUuid, role: 'DEVELOPER' });
    await data(t.app, admin, 'DELETE', `/api/v2/companies/${admin.companyUuid}/users/${leaver.userUuid}`);
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).user).toBeNull();
    expect((await historyOf(rec.uuid))[0]).toMatchObject({ type: 'RecordUserLinked', data: { userUuid: leaver.userUuid } });
    await data(t.app, admin, 'POST', `/api/v2/companies/${admin.companyUuid}/users`, { userUuid: leaver.userUuid, role: 'USER', scopes: [] });
    expect((await data(t.app, admin, 'GET', `/api/v2/records/${rec.uuid}`)).user).toMatchObject({ uuid: leaver.userUuid, role: 'USER' });
  });

  it('records of objects without the User trait answer user null and cannot be linked', async () => {
    const plain = await anObjectWith(t.app, admin, { email: { format: 'email' } });
    const rec = await aRecord(t.app, admin, plain.name, { email: admin.email });
    expect(rec.user).toBeNull();
    expectErrorBody(await call(t.app, admin, 'PUT', linkUrl(rec.uuid), { userUuid: admin.userUuid }), 409, 'GENERAL');
    expectErrorBody(await call(t.app, admin, 'PUT', linkUrl(rec.uuid), { userUuid: 'not-a-uuid' }), 400);
  });
});

describe('GET auth/me: the caller\'s profile record (issue 32, item 5)', () => {
  it('answers the record-like object (spec 2.3) of the User-trait record linked to the caller in the selected company', async () => {
    const member = await joinCompany(t.app, admin, { role: 'USER', scopes: ['members:read'] });
    const before = (await call(t.app, member, 'GET', '/api/v2/auth/me')).body.data;
    expect(before.record).toBeNull();

    const rec = await aRecord(t.app, admin, people.name, { name: 'Me Myself', email: member.email });
    const me = (await call(t.app, member, 'GET', '/api/v2/auth/me')).body.data;
    expect(me.record).toEqual({
      uuid: rec.uuid,
      name: 'Me Myself',
      label: 'Me Myself',
      createdAt: rec.createdAt,
      updatedAt: rec.updatedAt,
      deletedAt: null,
      createdByUuid: admin.userUuid,
      updatedByUuid: admin.userUuid,
      deletedByUuid: null,
      index: 1,
      deleted: false,
      complete: true,
      properties: [
        { icon: '', name: 'name', value: 'Me Myself', type: 'string', label: 'name' },
        { icon: '', name: 'email', value: member.email, type: 'string', label: 'email' },
      ],
      objects: { [people.name]: people.uuid },
      user: { uuid: member.userUuid, email: member.email, firstname: 'Test', lastname: 'User', initials: 'TU', role: 'USER', scopes: ['members:read'], filters: {}, record: null },
    });
    // The rest of the user object is as before.
    expect({ ...me, record: null }).toEqual(before);

    // The link removed: no record.
    await data(t.app, admin, 'DELETE', linkUrl(rec.uuid));
    expect((await call(t.app, member, 'GET', '/api/v2/auth/me')).body.data.record).toBeNull();
  });
});
