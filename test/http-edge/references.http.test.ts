import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { joinCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { aRecord, anObjectWith, data } from '../records/records-fixtures.js';
import { aProperty, aRelation } from '../schema/schema-fixtures.js';

/**
 * Every route that takes a second uuid (a reference from one resource to another) checks it in
 * the caller's company: another company's uuid and a uuid of nothing are the same 404, and
 * nothing is written (no event carries the request's id). Each uuid of the path is swapped in
 * turn, the others staying the caller's own; then the caller's own uuids are sent, to show the
 * route works and the 404 came from the swapped uuid.
 */

interface Ids {
  company: string;
  team: string;
  user: string;
  object: string;
  property: string;
  relation: string;
  record: string;
  target: string;
  webhook: string;
  filter: string;
}
type Slot = keyof Ids;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Route {
  method: Method;
  path: (x: Ids) => string;
  slots: Slot[];
  body?: Record<string, unknown>;
}

// In the order their own-uuid calls can run one after the other (an assignment before its removal).
const routes: Route[] = [
  { method: 'PUT', path: (x) => `/api/v2/teams/${x.team}/records/${x.record}`, slots: ['team', 'record'] },
  { method: 'DELETE', path: (x) => `/api/v2/teams/${x.team}/records/${x.record}`, slots: ['team', 'record'] },
  { method: 'PUT', path: (x) => `/api/v2/records/${x.record}/teams/${x.team}`, slots: ['record', 'team'] },
  { method: 'DELETE', path: (x) => `/api/v2/records/${x.record}/teams/${x.team}`, slots: ['record', 'team'] },
  { method: 'PUT', path: (x) => `/api/v2/teams/${x.team}/users/${x.user}`, slots: ['team', 'user'] },
  { method: 'DELETE', path: (x) => `/api/v2/teams/${x.team}/users/${x.user}`, slots: ['team', 'user'] },
  { method: 'PUT', path: (x) => `/api/v2/relations/${x.relation}/connection/${x.record}/${x.target}`, slots: ['relation', 'record', 'target'], body: {} },
  { method: 'DELETE', path: (x) => `/api/v2/relations/${x.relation}/connection/${x.record}/${x.target}`, slots: ['relation', 'record', 'target'] },
  { method: 'GET', path: (x) => `/api/v2/relations/${x.relation}/${x.object}`, slots: ['relation', 'object'] },
  { method: 'PUT', path: (x) => `/api/v2/objects/${x.object}/properties/${x.property}`, slots: ['object', 'property'], body: { label: 'Renamed' } },
  { method: 'DELETE', path: (x) => `/api/v2/objects/${x.object}/properties/${x.property}`, slots: ['object', 'property'] },
  { method: 'POST', path: (x) => `/api/v2/objects/${x.object}/properties/${x.property}/restore`, slots: ['object', 'property'] },
  { method: 'POST', path: (x) => `/api/v2/webhooks/test/${x.webhook}/${x.record}/created`, slots: ['webhook', 'record'] },
  { method: 'PUT', path: (x) => `/api/v2/companies/${x.company}/users/${x.user}`, slots: ['company', 'user'], body: { role: 'USER' } },
  { method: 'DELETE', path: (x) => `/api/v2/companies/${x.company}/users/${x.user}`, slots: ['company', 'user'] },
];

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let mine: Ids;
let theirs: Ids;
let myObjectName: string;

async function idsOf(who: TestTenant): Promise<Ids> {
  const member = await joinCompany(t.app, who);
  const object = await anObjectWith(t.app, who, { title: { type: 'string', format: 'text' } });
  const other = await anObjectWith(t.app, who, { title: { type: 'string', format: 'text' } });
  const property = await aProperty(t.app, who, object.uuid);
  const relation = await aRelation(t.app, who, object.uuid, other.uuid);
  const team = await data(t.app, who, 'POST', '/api/v2/teams', { name: 'Owners' });
  const filter = await data(t.app, who, 'POST', '/api/v2/filters', { name: 'Saved', objectName: object.name, filters: [] });
  if (who === a) myObjectName = object.name;
  const webhook = await data(t.app, who, 'POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/in', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', topic: `record.${object.name}.created` });
  return {
    company: who.companyUuid,
    team: team.uuid,
    user: member.userUuid,
    object: object.uuid,
    property: property.uuid,
    relation: relation.uuid,
    record: (await aRecord(t.app, who, object.name, { title: 'from' })).uuid,
    target: (await aRecord(t.app, who, other.name, { title: 'to' })).uuid,
    webhook: webhook.uuid,
    filter: filter.uuid,
  };
}

/** The state the removals need: the record assigned, the user on the team, the two records connected. */
async function assignEverything(who: TestTenant, x: Ids) {
  await data(t.app, who, 'PUT', `/api/v2/teams/${x.team}/records/${x.record}`);
  await data(t.app, who, 'PUT', `/api/v2/teams/${x.team}/users/${x.user}`);
  await data(t.app, who, 'PUT', `/api/v2/relations/${x.relation}/connection/${x.record}/${x.target}`, {});
}

async function send(route: Route, ids: Ids) {
  const requestId = `ref-${randomUUID()}`;
  const res = await t.app.inject({ method: route.method, url: route.path(ids), headers: { ...a.headers, 'x-request-id': requestId }, payload: route.body });
  const [written] = await t.platform.db.query<{ n: number }>(`select count(*)::int as n from events where metadata ->> 'requestId' = $1`, [requestId]);
  return { status: res.statusCode, body: res.json(), requestId, written: written!.n };
}

/** The error body with the uuid asked for and the request id taken out: what a caller could compare. */
const comparable = (body: Record<string, unknown>, uuid: string) => JSON.parse(JSON.stringify({ ...body, requestId: undefined }).replaceAll(uuid, '{uuid}'));

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  [a, b] = await twoTenants(t.app);
  [mine, theirs] = [await idsOf(a), await idsOf(b)];
  await assignEverything(a, mine);
  await assignEverything(b, theirs);
}, 120_000);
afterAll(async () => t.close());

describe('references to another company', () => {
  it('every route with a second uuid: another company\'s uuid and a uuid of nothing are the same 404, and nothing is written', async () => {
    let attempts = 0;
    for (const route of routes) {
      for (const slot of route.slots) {
        const foreign = await send(route, { ...mine, [slot]: theirs[slot] });
        const nowhere = randomUUID();
        const missing = await send(route, { ...mine, [slot]: nowhere });
        const where = `${route.method} ${route.path({ ...mine, [slot]: `{${slot}}` } as Ids)}`;
        expect(foreign.status, `${where} with another company's ${slot}: ${JSON.stringify(foreign.body)}`).toBe(404);
        expect(missing.status, `${where} with a ${slot} of nothing`).toBe(404);
        expect(foreign.body).toMatchObject({ status: 404, requestId: foreign.requestId, errors: [{ type: 'NOT_FOUND' }] });
        expect(comparable(foreign.body, theirs[slot]), where).toEqual(comparable(missing.body, nowhere));
        expect([foreign.written, missing.written], `${where} wrote events`).toEqual([0, 0]);
        attempts += 2;
      }
    }
    expect(attempts).toBe(2 * routes.reduce((n, r) => n + r.slots.length, 0));
    // Nothing of the other company shows on this side.
    expect(await data(t.app, a, 'GET', `/api/v2/teams/${mine.team}/records`)).toEqual([mine.record]);
  });

  it('the same routes with the caller\'s own uuids succeed, so each 404 above came from the swapped uuid', async () => {
    for (const route of routes) {
      const res = await send(route, mine);
      expect(res.status, `${route.method} ${route.path(mine)}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    }
  });

  it('uuids in a body that name another resource: another company\'s and a uuid of nothing get the same refusal, nothing written', async () => {
    const bodies: { url: string; body: (uuid: string) => Record<string, unknown>; uuid: Slot }[] = [
      { url: `/api/v2/relations/${mine.object}`, body: (u) => ({ name: 'towards', toObjectUuid: u, cardinality: 'MANY_TO_MANY' }), uuid: 'object' },
      { url: '/api/v2/sync', body: (u) => ({ sourceObjectUuid: u, targetObjectUuid: mine.object, relationUuid: mine.relation, mappings: [{ source: 'title', target: 'title' }] }), uuid: 'object' },
      { url: '/api/v2/sync', body: (u) => ({ sourceObjectUuid: mine.object, targetObjectUuid: mine.object, relationUuid: u, mappings: [{ source: 'title', target: 'title' }] }), uuid: 'relation' },
      { url: '/api/v2/webhooks/test', body: (u) => ({ topic: 'record.all.created', recordUuid: u }), uuid: 'record' },
      { url: `/api/v2/${myObjectName}/index`, body: (u) => ({ savedFilter: u }), uuid: 'filter' },
    ];
    for (const { url, body, uuid } of bodies) {
      const route: Route = { method: 'POST', path: () => url, slots: [] };
      const foreign = await send({ ...route, body: body(theirs[uuid]) }, mine);
      const nowhere = randomUUID();
      const missing = await send({ ...route, body: body(nowhere) }, mine);
      expect([400, 404], `POST ${url} with another company's ${uuid}: ${JSON.stringify(foreign.body)}`).toContain(foreign.status);
      expect(missing.status, `POST ${url}`).toBe(foreign.status);
      expect(comparable(foreign.body, theirs[uuid]), url).toEqual(comparable(missing.body, nowhere));
      expect([foreign.written, missing.written], `POST ${url} wrote events`).toEqual([0, 0]);
    }
  });
});
