// The typed client against a real server on loopback: one call (at least) per route group, the
// envelopes unwrapped, errors thrown as ApiError with the spec's body, pages walked.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, collect, createPlatformClient, type PlatformClient } from '../../client/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';

let t: TestApp;
let rx: Receiver;
let baseUrl: string;
let api: PlatformClient;
let companyUuid: string;
/** The ApiError a call must throw. */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const outcome = await call.then(() => null, (e: unknown) => e);
  expect(outcome).toBeInstanceOf(ApiError);
  return outcome as ApiError;
}
const hex = () => randomBytes(4).toString('hex');
const SECRET = `whsec_${Buffer.from('a client test secret, long enough').toString('base64')}`;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '1500' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  rx = await startReceiver();
  api = createPlatformClient({ baseUrl });
  const email = `client-${hex()}@example.test`;
  const registered = await api.post('/api/v2/auth/register', { body: { email, password: 'correct horse battery staple', firstname: 'Cli', lastname: 'Ent' } });
  expect(registered.user.email).toBe(email);
  const session = await api.login(email, 'correct horse battery staple');
  expect(session.token).toBe(api.token);
  const company = await api.post('/api/v2/companies', { body: { name: 'Client Co', subdomain: `client-${hex()}` } });
  companyUuid = company.uuid;
  await api.selectCompany(companyUuid);
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

describe('auth, companies, members, teams, partners', () => {
  it('me names the selected company; the company, its settings, its members and teams read back', async () => {
    const me = await api.get('/api/v2/auth/me');
    expect(me.selectedCompany).toBe(companyUuid);
    const company = await api.get('/api/v2/companies/{uuid}', { params: { path: { uuid: companyUuid } } });
    expect(company.name).toBe('Client Co');
    const members = await api.listPost('/api/v2/companies/{uuid}/users/index', { params: { path: { uuid: companyUuid } }, body: {} });
    expect(members.total).toBe(1);
    expect(members.items[0]!.role).toBe('ADMIN');
    const team = await api.post('/api/v2/teams', { body: { name: `team-${hex()}` } });
    const teams = await api.listPost('/api/v2/teams/index', { body: {} });
    expect(teams.items.map((x) => x.uuid)).toContain(team.uuid);
    const companies = await api.listPost('/api/v2/companies/index', { body: {} });
    expect(companies.items.map((c) => c.uuid)).toContain(companyUuid);
  });

  it('a route the caller may not use throws an ApiError carrying the spec error body and the request id', async () => {
    const err = await api.listPost('/api/v2/partners/companies/index', { body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(403);
    expect(e.body.status).toBe(403);
    expect(e.body.roles).toContain('RESELLER');
    expect(e.requestId).toBe(api.lastRequestId);
    expect(e.requestId.length).toBeGreaterThan(0);
    expect(e.body.errors[0]!.correctionSuggestion.length).toBeGreaterThan(0);
  });

  it('no token: 401 as an ApiError; an unknown uuid: 404', async () => {
    const anonymous = createPlatformClient({ baseUrl });
    const unauth = await failure(anonymous.get('/api/v2/auth/me'));
    expect(unauth.status).toBe(401);
    const missing = await failure(api.get('/api/v2/objects/{uuid}', { params: { path: { uuid: '00000000-0000-4000-8000-000000000000' } } }));
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0]!.type).toBe('NOT_FOUND');
  });
});

describe('schema, records, history, events, filters, syncs, files, webhooks, CMS, health', () => {
  it('walks the groups a console uses, each answer unwrapped and typed', async () => {
    const name = `book_${hex()}`;
    const object = await api.post('/api/v2/objects', { body: { name, label: 'Book', plural: 'Books' } });
    expect(object.name).toBe(name);
    const title = await api.post('/api/v2/objects/{objectUuid}/properties', { params: { path: { objectUuid: object.uuid } }, body: { name: 'title', label: 'Title', type: 'string', format: 'text' } });
    expect(title.name).toBe('title');
    const props = await api.listPost('/api/v2/objects/{objectUuid}/properties/index', { params: { path: { objectUuid: object.uuid } }, body: {} });
    expect(props.items.map((p) => p.name)).toContain('title');
    const other = await api.post('/api/v2/objects', { body: { name: `author_${hex()}`, label: 'Author' } });
    const relation = await api.post('/api/v2/relations/{objectUuid}', { params: { path: { objectUuid: object.uuid } }, body: { name: `by_${hex()}`, toObjectUuid: other.uuid, cardinality: 'MANY_TO_ONE' } });
    const relations = await api.listPost('/api/v2/relations/index/{objectUuid}', { params: { path: { objectUuid: object.uuid } }, body: {} });
    expect(relations.items.map((r) => r.uuid)).toContain(relation.uuid);
    const traits = await api.listGet('/api/v2/traits/{objectUuid}', { params: { path: { objectUuid: object.uuid } } });
    expect(traits.total).toBeGreaterThanOrEqual(0);

    const created = await api.post('/api/v2/{objectName}/', { params: { path: { objectName: name } }, body: { properties: { title: 'Dune' } } });
    const uuid = created.uuid;
    await api.put('/api/v2/records/{uuid}', { params: { path: { uuid } }, body: { properties: { title: 'Dune Messiah' } } });
    const editRequest = api.lastRequestId!;
    const found = await api.listPost('/api/v2/{objectName}/index', { params: { path: { objectName: name } }, body: { filters: [{ key: 'title', operator: 'equals', value: 'Dune Messiah' }] } });
    expect(found.items.map((r) => r.uuid)).toEqual([uuid]);
    const first = await api.get('/api/v2/records/{uuid}', { params: { path: { uuid }, query: { asOf: '0' } } });
    expect((first.properties as Record<string, unknown>).title).toBe('Dune');
    const history = await api.listGet('/api/v2/records/{uuid}/history', { params: { path: { uuid } } });
    expect(history.total).toBe(2);
    expect(history.items[0]!.requestId).toBe(editRequest);
    expect(history.items[0]!.changes.title).toEqual({ before: 'Dune', after: 'Dune Messiah' });
    const events = await api.listPost('/api/v2/events/index', { body: { filters: [{ key: 'requestId', operator: 'equals', value: editRequest }] } });
    expect(events.items.map((e) => e.type)).toEqual(['RecordUpdated']);
    await api.delete('/api/v2/records/{uuid}', { params: { path: { uuid }, query: {} } });
    await api.post('/api/v2/records/{uuid}/restore', { params: { path: { uuid } } });

    const filter = await api.post('/api/v2/filters', { body: { name: 'dunes', objectName: name, filters: [{ key: 'title', operator: 'contains', value: 'Dune' }] } });
    const filters = await api.listPost('/api/v2/filters/index', { body: {} });
    expect(filters.items.map((f) => f.uuid)).toContain(filter.uuid);
    const syncs = await api.listPost('/api/v2/sync/index', { body: {} });
    expect(syncs.total).toBe(0);
    const files = await api.listPost('/api/v2/files/index', { body: {} });
    expect(files.total).toBe(0);
    const environments = await api.get('/api/v2/cms/environments');
    expect(Array.isArray(environments)).toBe(true);
    const modules = await api.listPost('/api/v2/modules/index', { body: {} });
    expect(modules.total).toBeGreaterThanOrEqual(0);
    const health = await api.raw.GET('/api/v2/health');
    expect(health.response.status).toBe(200);

    const hook = await api.post('/api/v2/webhooks', { body: { url: `${rx.url}/client`, secret: SECRET, topic: `record.${name}.created` } });
    await api.post('/api/v2/{objectName}/', { params: { path: { objectName: name } }, body: { properties: { title: 'Children of Dune' } } });
    await waitFor(() => (rx.on('/client').length > 0 ? true : null), 10_000, 'a delivery');
    const deliveries = await waitFor(async () => {
      const p = await api.listPost('/api/v2/webhooks/{uuid}/deliveries/index', { params: { path: { uuid: hook.uuid } }, body: {} });
      return p.items[0]?.status === 'succeeded' ? p : null;
    }, 10_000, 'delivery succeeded');
    expect(deliveries.total).toBe(1);
    const hooks = await api.listPost('/api/v2/webhooks/index', { body: {} });
    expect(hooks.items.map((h) => h.uuid)).toEqual([hook.uuid]);
  });
});

describe('pagination helpers', () => {
  it('eachPost walks every page of an index route; listPost answers the counters', async () => {
    const prefix = `pg${hex()}`;
    for (let i = 0; i < 5; i++) await api.post('/api/v2/teams', { body: { name: `${prefix}-${i}` } });
    const first = await api.listPost('/api/v2/teams/index', { body: { limit: 2 } });
    expect(first.total).toBeGreaterThanOrEqual(5);
    expect(first).toMatchObject({ page: 0, perPage: 2, lastPage: Math.ceil(first.total / 2) - 1 });
    expect(first.items).toHaveLength(2);
    const all = await collect(api.eachPost('/api/v2/teams/index', { body: { limit: 2 } }));
    expect(all).toHaveLength(first.total);
    expect(new Set(all.map((x) => x.uuid)).size).toBe(first.total);
    expect(all.map((x) => x.name).filter((n) => n.startsWith(prefix)).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `${prefix}-${i}`));
  });
});
