import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';
import { aRecord, anObjectWith, call, data } from '../records/records-fixtures.js';
import { aRelation } from '../schema/schema-fixtures.js';

let t: TestApp;
let owner: TestTenant;
let rx: Receiver;
const SECRET = 'filters-secret-value';

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' });
  owner = await signUpWithCompany(t.app);
  rx = await startReceiver();
  rx.answer(() => ({ status: 200, body: 'RECEIVER-SAYS-HELLO' }));
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

let n = 0;
async function hook(body: Record<string, unknown>, who: TestTenant = owner) {
  const path = `/f${++n}`;
  const res = await call(t.app, who, 'POST', '/api/v2/webhooks', { url: `${rx.url}${path}`, secret: SECRET, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { uuid: res.body.data.uuid as string, path };
}

const bodies = (path: string) => rx.on(path).map((r) => JSON.parse(r.body));
const settle = () => new Promise((r) => setTimeout(r, 400));

/** A lead object (email, status, score) and a fresh name per test. */
const leadObject = () => anObjectWith(t.app, owner, { email: { type: 'string', format: 'email' }, status: { type: 'string', format: 'text' }, score: { type: 'number', format: 'number' } });

describe('filters', () => {
  it('deliver only records matching the filter, evaluated with the records evaluator (groups are an OR of ANDs)', async () => {
    const lead = await leadObject();
    const { path } = await hook({
      topic: `record.${lead.name}.created`,
      filter: { groups: [{ items: [{ property: 'score', operator: 'gte', value: 50 }, { property: 'status', operator: 'EQUALS', value: 'open' }] }, { items: [{ property: 'email', operator: 'endsWith', value: '@vip.test' }] }] },
    });
    await aRecord(t.app, owner, lead.name, { score: 10, status: 'open', email: 'a@x.test' });
    await aRecord(t.app, owner, lead.name, { score: 60, status: 'open', email: 'b@x.test' });
    await aRecord(t.app, owner, lead.name, { score: 70, status: 'closed', email: 'c@x.test' });
    await aRecord(t.app, owner, lead.name, { score: 1, status: 'closed', email: 'd@vip.test' });
    await aRecord(t.app, owner, lead.name, { score: 50, status: 'open', email: 'e@x.test' });
    await waitFor(() => rx.on(path).length >= 3, 5_000, 'matching deliveries');
    await settle();
    expect(bodies(path).map((b) => b.data.record.properties.email).sort()).toEqual(['b@x.test', 'd@vip.test', 'e@x.test']);
  });

  it('on updates the filter sees the record as it is after the event', async () => {
    const lead = await leadObject();
    const { path } = await hook({ topic: `record.${lead.name}.updated`, filter: { groups: [{ items: [{ property: 'status', operator: 'equals', value: 'won' }] }] } });
    const a = await aRecord(t.app, owner, lead.name, { status: 'open', email: 'a@x.test' });
    const b = await aRecord(t.app, owner, lead.name, { status: 'open', email: 'b@x.test' });
    await data(t.app, owner, 'PUT', `/api/v2/${lead.name}/${a.uuid}`, { properties: { status: 'won' } });
    await data(t.app, owner, 'PUT', `/api/v2/${lead.name}/${b.uuid}`, { properties: { status: 'lost' } });
    await data(t.app, owner, 'PUT', `/api/v2/${lead.name}/${a.uuid}`, { properties: { score: 5 } });
    await waitFor(() => rx.on(path).length >= 2, 5_000, 'two updates of the won lead');
    await settle();
    expect(bodies(path).map((x) => [x.data.record.uuid, x.data.changes])).toEqual([
      [a.uuid, { status: { before: 'open', after: 'won' } }],
      [a.uuid, { score: { before: null, after: 5 } }],
    ]);
  });

  it('a filter is checked against the schema when the webhook is saved', async () => {
    const lead = await leadObject();
    const unknown = await call(t.app, owner, 'POST', '/api/v2/webhooks', {
      url: `${rx.url}/never`,
      secret: SECRET,
      topic: `record.${lead.name}.created`,
      filter: { groups: [{ items: [{ property: 'nope', operator: 'equals', value: 1 }] }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].message).toMatch(/^body\.filter\.groups\.0\.items\.0/);
    const noObject = await call(t.app, owner, 'POST', '/api/v2/webhooks', {
      url: `${rx.url}/never`,
      secret: SECRET,
      topic: 'record.doesnotexist.created',
      filter: { groups: [{ items: [{ property: 'x', operator: 'equals', value: 1 }] }] },
    });
    expect(noObject.status).toBe(400);
    expect(noObject.body.errors[0].message).toMatch(/body\.filter: the topic's object doesnotexist does not exist/);
    const badOperator = await call(t.app, owner, 'POST', '/api/v2/webhooks', {
      url: `${rx.url}/never`,
      secret: SECRET,
      topic: `record.${lead.name}.created`,
      filter: { groups: [{ items: [{ property: 'score', operator: 'explodes', value: 1 }] }] },
    });
    expect(badOperator.status).toBe(400);
  });
});

describe('property_changed topics', () => {
  it('deliver only updates that change the named property; the property must exist', async () => {
    const lead = await leadObject();
    const { path } = await hook({ topic: `record.${lead.name}.property_changed.email` });
    const r = await aRecord(t.app, owner, lead.name, { email: 'a@x.test', status: 'open' });
    await data(t.app, owner, 'PUT', `/api/v2/${lead.name}/${r.uuid}`, { properties: { status: 'closed' } });
    await data(t.app, owner, 'PUT', `/api/v2/${lead.name}/${r.uuid}`, { properties: { email: 'new@x.test' } });
    await data(t.app, owner, 'PUT', `/api/v2/${lead.name}/${r.uuid}`, { properties: { email: 'new@x.test' } });
    await waitFor(() => rx.on(path).length >= 1, 5_000, 'email change');
    await settle();
    expect(bodies(path).map((b) => b.data.changes)).toEqual([{ email: { before: 'a@x.test', after: 'new@x.test' } }]);
    const missing = await call(t.app, owner, 'POST', '/api/v2/webhooks', { url: `${rx.url}/x`, secret: SECRET, topic: `record.${lead.name}.property_changed.phone` });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].message).toContain(`${lead.name} has no property phone`);
    const topics = await data(t.app, owner, 'GET', `/api/v2/webhooks/property-topics?objectName=${lead.name}`);
    expect(topics.map((x: { topic: string }) => x.topic)).toEqual(['email', 'score', 'status'].map((p) => `record.${lead.name}.property_changed.${p}`));
  });
});

describe('includeRelations', () => {
  it('adds related records up to relationLimit, filtered by relationFilters, with the RelationCreated topic on each connection', async () => {
    const company = await anObjectWith(t.app, owner, { name: { type: 'string', format: 'text' } });
    const contact = await anObjectWith(t.app, owner, { email: { type: 'string', format: 'email' }, role: { type: 'string', format: 'text' } });
    const relation = await aRelation(t.app, owner, company.uuid, contact.uuid, { name: 'contacts', cardinality: 'ONE_TO_MANY' });
    const connected = await hook({ topic: 'RelationCreated' });
    const limited = await hook({ topic: `record.${company.name}.updated`, includeRelations: ['contacts'], relationLimit: 3 });
    const buyers = await hook({ topic: `record.${company.name}.updated`, includeRelations: ['contacts'], relationFilters: { contacts: { groups: [{ items: [{ property: 'role', operator: 'equals', value: 'buyer' }] }] } } });
    const acme = await aRecord(t.app, owner, company.name, { name: 'Acme' });
    const people = [];
    for (let i = 0; i < 5; i++) {
      const person = await aRecord(t.app, owner, contact.name, { email: `p${i}@acme.test`, role: i % 2 === 0 ? 'buyer' : 'user' });
      await data(t.app, owner, 'PUT', `/api/v2/relations/${relation.uuid}/connection/${acme.uuid}/${person.uuid}`, {});
      people.push(person.uuid);
    }
    // Another company's record of the same shape is never included.
    const other = await signUpWithCompany(t.app);
    await call(t.app, other, 'POST', '/api/v2/objects', { name: company.name, label: 'x' });

    await data(t.app, owner, 'PUT', `/api/v2/${company.name}/${acme.uuid}`, { properties: { name: 'Acme Inc' } });
    await waitFor(() => rx.on(limited.path).length === 1 && rx.on(buyers.path).length === 1, 5_000, 'company updates');
    const [withLimit] = bodies(limited.path);
    expect(withLimit.data.relations).toHaveLength(3);
    for (const r of withLimit.data.relations) {
      expect(r).toMatchObject({ relationName: 'contacts', relationUuid: relation.uuid, objectName: contact.name, direction: 'outgoing' });
      expect(people).toContain(r.uuid);
    }
    const [onlyBuyers] = bodies(buyers.path);
    expect(onlyBuyers.data.relations.map((r: { properties: { email: string } }) => r.properties.email).sort()).toEqual(['p0@acme.test', 'p2@acme.test', 'p4@acme.test']);

    await waitFor(() => rx.on(connected.path).length === 5, 5_000, 'five connections');
    // One delivery per connection; each is its own stream, so they may arrive in any order (docs/webhooks.md, Delivery 2).
    expect(bodies(connected.path).map((b) => b.data.payload.toRecordUuid).sort()).toEqual([...people].sort());
    expect(bodies(connected.path)[0]).toMatchObject({ type: 'RelationCreated', data: { name: 'RelationCreated', payload: { relationUuid: relation.uuid, fromRecordUuid: acme.uuid } } });

    const unknownRelation = await call(t.app, owner, 'POST', '/api/v2/webhooks', { url: `${rx.url}/x`, secret: SECRET, topic: `record.${company.name}.updated`, includeRelations: ['nope'] });
    expect(unknownRelation.status).toBe(400);
    expect(unknownRelation.body.errors[0].type).toBe('RELATION_NOT_ALLOWED');
  });
});

describe('test payloads (spec 6.6)', () => {
  it('uses a simulated record when none matches, explained in context.testNote and X-Webhook-Test-Note', async () => {
    const lead = await leadObject();
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/test', headers: owner.headers, payload: { topic: `record.${lead.name}.created` } });
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data;
    expect(d).toMatchObject({ simulated: true, eventType: 'created', topic: `record.${lead.name}.created` });
    expect(d.testNote).toMatch(/simulated record/);
    expect(res.headers['x-webhook-test-note']).toBe(d.testNote);
    expect(d.payload.context).toEqual({ test: true, simulated: true, testNote: d.testNote });
    expect(d.payload.data.record.properties).toEqual({ email: 'jane.doe@example.com', status: 'Sample status', score: 42 });
    expect(d.delivery).toBeNull();
  });

  it('uses the newest real record matching topic and filter; all is tested as updated', async () => {
    const lead = await leadObject();
    const open = await aRecord(t.app, owner, lead.name, { status: 'open', email: 'open@x.test' });
    await aRecord(t.app, owner, lead.name, { status: 'closed', email: 'closed@x.test' });
    await data(t.app, owner, 'PUT', `/api/v2/${lead.name}/${open.uuid}`, { properties: { score: 9 } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v2/webhooks/test',
      headers: owner.headers,
      payload: { topic: `record.${lead.name}.all`, filter: { groups: [{ items: [{ property: 'status', operator: 'equals', value: 'open' }] }] } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-webhook-test-note']).toBeUndefined();
    const d = res.json().data;
    expect(d).toMatchObject({ simulated: false, testNote: null, eventType: 'updated' });
    expect(d.payload).toMatchObject({ type: `record.${lead.name}.updated`, data: { record: { uuid: open.uuid, properties: { status: 'open', score: 9 } }, changes: { score: { before: null, after: 9 } } } });
  });

  it('for a saved webhook, a given record and event type; sends once with deliver=true, signed, without echoing the receiver', async () => {
    const lead = await leadObject();
    const w = await hook({ topic: `record.${lead.name}.created`, webhookFormat: 'LEGACY' });
    const r = await aRecord(t.app, owner, lead.name, { email: 'legacy@x.test' });
    await waitFor(() => rx.on(w.path).length === 1, 5_000, 'live delivery');
    const res = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/test/${w.uuid}/${r.uuid}/created?deliver=true`, headers: owner.headers });
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data;
    expect(d).toMatchObject({ simulated: false, eventType: 'created', delivery: { responseCode: 200, ok: true, error: null } });
    expect(d.payload).toMatchObject({ event: 'created', uuid: r.uuid, record: { properties: [{ name: 'email', type: 'string', value: 'legacy@x.test' }] }, context: { test: true, simulated: false } });
    expect(res.body).not.toContain('RECEIVER-SAYS-HELLO');
    const sent = rx.on(w.path)[1]!;
    expect(JSON.parse(sent.body)).toEqual(d.payload);
    expect(new Webhook(Buffer.from(SECRET), { format: 'raw' }).verify(sent.body, sent.headers as Record<string, string>)).toBeTruthy();

    const auto = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/test/${w.uuid}`, headers: owner.headers });
    expect(auto.json().data).toMatchObject({ simulated: false, payload: { uuid: r.uuid } });

    const missing = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/test/${w.uuid}/00000000-0000-4000-8000-00000000abcd/created`, headers: owner.headers });
    expect(missing.statusCode).toBe(404);
    const badType = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/test/${w.uuid}/${r.uuid}/exploded`, headers: owner.headers });
    expect(badType.statusCode).toBe(400);
    const other = await signUpWithCompany(t.app);
    const foreign = await t.app.inject({ method: 'POST', url: `/api/v2/webhooks/test/${w.uuid}`, headers: other.headers });
    expect(foreign.statusCode).toBe(404);
    // Another company cannot test against our record either.
    const foreignRecord = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks/test', headers: other.headers, payload: { topic: `record.${lead.name}.created`, recordUuid: r.uuid } });
    expect(foreignRecord.statusCode).toBe(404);
  });
});
