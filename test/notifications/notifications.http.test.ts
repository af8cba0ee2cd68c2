import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/webhook-receiver.js';
import { call, data, expectErrorBody } from '../schema/schema-fixtures.js';
import { aRecord, anObjectWith } from '../records/records-fixtures.js';
import { createForm, leadSchema, threeStepForm } from '../forms/form-fixtures.js';
import { openStream } from '../events/sse.js';
import { mentionsIn, noticeUuid } from '../../src/notifications/notifications.reactor.js';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', FORMS_RATE_LIMIT_MAX: '0', EVENT_FEED_POLL_MS: '50' });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => t.close());

const inbox = async (who: TestTenant, body: Record<string, unknown> = {}) => (await call(t.app, who, 'POST', '/api/v2/notifications/index', body)).body;
const waitForInbox = (who: TestTenant, n: number) =>
  waitFor(async () => {
    const page = await inbox(who);
    return page.total >= n ? page : null;
  }, 20_000, `${n} notifications`);
const mention = (who: TestTenant) => `<p>Hi <span data-mention="${who.userUuid}">@someone</span></p>`;

describe('notifications inbox', () => {
  it('tells the members of a team of a record assigned to it, but not the one who assigned it', async () => {
    const admin = await signUpWithCompany(t.app);
    const member = await joinCompany(t.app, admin);
    const team = await data(t.app, admin, 'POST', '/api/v2/teams', { name: 'Support' });
    await data(t.app, admin, 'PUT', `/api/v2/teams/${team.uuid}/users/${member.userUuid}`);
    await data(t.app, admin, 'PUT', `/api/v2/teams/${team.uuid}/users/${admin.userUuid}`);
    const object = await anObjectWith(t.app, admin, { title: { type: 'string', format: 'text' } });
    const record = await aRecord(t.app, admin, object.name, { title: 'Ticket' });
    const assigned = await t.app.inject({ method: 'PUT', url: `/api/v2/teams/${team.uuid}/records/${record.uuid}`, headers: { ...admin.headers, 'x-request-id': 'assign-1' } });
    expect(assigned.statusCode).toBe(200);
    const page = await waitForInbox(member, 1);
    expect(page.data[0]).toMatchObject({ kind: 'record.assigned', title: 'A record was assigned to Support', subject: { type: 'record', uuid: record.uuid }, read: false });
    expect((await data(t.app, member, 'GET', '/api/v2/notifications/unread-count')).unread).toBe(1);
    // The notification carries the request's id: support staff find it from the assignment's requestId.
    const logged = await call(t.app, admin, 'POST', '/api/v2/events/index', { requestId: 'assign-1' });
    expect(logged.status, JSON.stringify(logged.body)).toBe(200);
    expect(logged.body.data.map((e: { type: string }) => e.type)).toContain('NotificationAdded');
    expect((await inbox(admin)).total).toBe(0);
  });

  it('tells a form owner of a submission, and a member mentioned in a record (once, not again for the same mention)', async () => {
    const owner = await signUpWithCompany(t.app);
    const colleague = await joinCompany(t.app, owner, { role: 'ADMIN' });
    const other = await joinCompany(t.app, owner);
    const schema = await leadSchema(t.app, colleague);
    const form = await createForm(t.app, colleague, threeStepForm(schema, { name: 'contact-us' }));
    const submitted = await t.app.inject({ method: 'POST', url: `/api/v2/forms/public/${owner.companyUuid}/${form.uuid}/submit`, payload: { answers: { name: 'Ada', email: 'ada@corp.example', budget: 10 } } });
    expect(submitted.statusCode, submitted.body).toBe(201);
    expect((await waitForInbox(colleague, 1)).data[0]).toMatchObject({ kind: 'form.submitted', subject: { type: 'form', uuid: form.uuid } });

    const notes = await anObjectWith(t.app, owner, { body: { type: 'string', format: 'rich-text' } });
    const note = await aRecord(t.app, owner, notes.name, { body: mention(colleague) });
    await waitForInbox(colleague, 2);
    await data(t.app, owner, 'PUT', `/api/v2/${notes.name}/${note.uuid}`, { properties: { body: `${mention(colleague)} and @[Other](user:${other.userUuid})` } });
    expect((await waitForInbox(other, 1)).data[0]).toMatchObject({ kind: 'record.mentioned', subject: { type: 'record', uuid: note.uuid, objectName: notes.name } });
    const mine = await inbox(colleague);
    expect(mine.data.map((n: { kind: string }) => n.kind)).toEqual(['record.mentioned', 'form.submitted']);
    expect(mine.total).toBe(2);
  });

  it('reads one, reads all, filters unread, and mutes a kind', async () => {
    const admin = await signUpWithCompany(t.app);
    const member = await joinCompany(t.app, admin);
    const notes = await anObjectWith(t.app, admin, { body: { type: 'string', format: 'rich-text' } });
    for (let i = 0; i < 3; i++) await aRecord(t.app, admin, notes.name, { body: mention(member) });
    const page = await waitForInbox(member, 3);
    const first = page.data[2];
    const read = await data(t.app, member, 'POST', `/api/v2/notifications/${first.uuid}/read`);
    expect(read).toMatchObject({ uuid: first.uuid, read: true });
    expect(await data(t.app, member, 'POST', `/api/v2/notifications/${first.uuid}/read`)).toEqual(read);
    expect((await inbox(member, { filters: [{ key: 'unread', operator: 'equals', value: true }] })).total).toBe(2);
    expect(await data(t.app, member, 'POST', '/api/v2/notifications/read-all')).toEqual({ read: 2, unread: 0 });
    expect((await data(t.app, member, 'GET', '/api/v2/notifications/unread-count')).unread).toBe(0);

    expect(await data(t.app, member, 'PUT', '/api/v2/notifications/preferences', { muted: ['record.mentioned'] })).toEqual({ muted: ['record.mentioned'], kinds: ['record.assigned', 'record.mentioned', 'form.submitted'] });
    expectErrorBody(await call(t.app, member, 'PUT', '/api/v2/notifications/preferences', { muted: ['everything'] }), 400);
    const muted = await aRecord(t.app, admin, notes.name, { body: mention(member) });
    // Wait for the reactor to pass the muted mention, then check that nothing was made of it.
    const tally = await aRecord(t.app, admin, notes.name, { body: 'plain' });
    await waitFor(async () => {
      const [row] = await t.platform.db.query<{ checkpoint: string }>("select checkpoint from checkpoints where name = 'notifications'");
      const [ev] = await t.platform.db.query<{ tx: string; position: string }>("select transaction_id::text as tx, position::text from events where stream_id = $1 order by position desc limit 1", [`record-${tally.uuid}`]);
      if (!row?.checkpoint || !ev) return false;
      const [tx, pos] = row.checkpoint.split(':');
      return BigInt(tx!) > BigInt(ev.tx) || (tx === ev.tx && BigInt(pos!) >= BigInt(ev.position));
    }, 20_000, 'reactor past the muted mention');
    expect((await inbox(member)).total).toBe(3);
    expect((await inbox(member)).data.some((n: { subject: { uuid: string } }) => n.subject.uuid === muted.uuid)).toBe(false);
  });

  it('401 without a token; another member\'s or another company\'s notification is a 404', async () => {
    const [admin, stranger] = await twoTenants(t.app);
    const member = await joinCompany(t.app, admin);
    const peer = await joinCompany(t.app, admin);
    const notes = await anObjectWith(t.app, admin, { body: { type: 'string', format: 'rich-text' } });
    await aRecord(t.app, admin, notes.name, { body: mention(member) });
    const [n] = (await waitForInbox(member, 1)).data;
    for (const [method, url] of [['POST', '/api/v2/notifications/index'], ['GET', '/api/v2/notifications/unread-count'], ['POST', '/api/v2/notifications/read-all'], ['GET', '/api/v2/notifications/preferences'], ['GET', `/api/v2/notifications/${n.uuid}`], ['POST', `/api/v2/notifications/${n.uuid}/read`], ['GET', '/api/v2/notifications/stream']] as const) {
      expectErrorBody(await call(t.app, null, method, url, method === 'POST' ? {} : undefined), 401);
    }
    for (const who of [peer, admin, stranger]) {
      expectErrorBody(await call(t.app, who, 'GET', `/api/v2/notifications/${n.uuid}`), 404, 'NOT_FOUND');
      expectErrorBody(await call(t.app, who, 'POST', `/api/v2/notifications/${n.uuid}/read`), 404, 'NOT_FOUND');
      expect((await inbox(who)).total).toBe(0);
    }
    expect((await data(t.app, member, 'GET', `/api/v2/notifications/${n.uuid}`)).read).toBe(false);
  });
});

describe('the live inbox', () => {
  it('a client that disconnects 20 times while notifications are made receives each once, and none of another member\'s', async () => {
    const admin = await signUpWithCompany(t.app);
    const member = await joinCompany(t.app, admin);
    const peer = await joinCompany(t.app, admin);
    const notes = await anObjectWith(t.app, admin, { body: { type: 'string', format: 'rich-text' } });
    const total = 20;
    const writing = (async () => {
      for (let i = 0; i < total; i++) {
        await aRecord(t.app, admin, notes.name, { body: mention(member) });
        await aRecord(t.app, admin, notes.name, { body: mention(peer) });
      }
    })();
    const received: { id: string; uuid: string }[] = [];
    let last: string | undefined;
    for (let round = 0; round < 20; round++) {
      const headers: Record<string, string> = { ...member.headers, ...(last ? { 'last-event-id': last } : {}) };
      const stream = await openStream(base, '/api/v2/notifications/stream', headers);
      expect(stream.status).toBe(200);
      const got = await stream.take(1 + (round % 3), 3000);
      stream.close();
      for (const e of got.filter((x) => x.event === 'NotificationAdded')) {
        received.push({ id: e.id!, uuid: JSON.parse(e.data).data.notificationUuid });
        last = e.id;
      }
    }
    await writing;
    // After the disconnects, one last connection takes the rest.
    const rest = await openStream(base, '/api/v2/notifications/stream', { ...member.headers, ...(last ? { 'last-event-id': last } : {}) });
    await rest.take(total - received.length, 20_000);
    rest.close();
    for (const e of rest.events.filter((x) => x.event === 'NotificationAdded')) received.push({ id: e.id!, uuid: JSON.parse(e.data).data.notificationUuid });
    const uuids = received.map((r) => r.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    const inboxNow = await inbox(member, { limit: 100 });
    expect(inboxNow.total).toBe(total);
    expect([...uuids].sort()).toEqual(inboxNow.data.map((n: { uuid: string }) => n.uuid).sort());
  });
});

describe('mentions and notice ids', () => {
  it('finds rich-text and markdown mentions anywhere in a value; a notice id is stable and a valid uuid', () => {
    const a = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const b = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    expect([...mentionsIn({ x: [`<span data-mention="${a}">`], y: { z: `@[B](user:${b})` }, n: 3 })].sort()).toEqual([a, b].sort());
    const id = noticeUuid('t', 'record-x@0', a, 'record.mentioned');
    expect(id).toBe(noticeUuid('t', 'record-x@0', a, 'record.mentioned'));
    expect(id).not.toBe(noticeUuid('t', 'record-x@1', a, 'record.mentioned'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
