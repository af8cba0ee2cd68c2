import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTestDatabaseUrl, onPostgres } from '../support/test-db.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

// Item 10 of issue 20: two server processes on one PostgreSQL. A change through one is honoured
// by the other as soon as the NOTIFY arrives; the caches' own limits are set to a minute here, so
// only the notification can explain a refusal within the bound.
const CACHE_MS = '60000';
// The time from the change's answer to the other process's refusal, the asking request included.
// The target is 50 ms; the first request after the answer is refused in the runs measured
// (docs/operations.md), and a loaded CI machine gets slack for that one request's own time.
const BOUND_MS = 250;

type Json = Record<string, unknown>;
async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Json };
}
const data = (r: { body: Json }) => r.body.data as Json;

/** Asks until `refused` holds; resolves with the time it took (or Infinity past `limitMs`). */
async function timeUntil(refused: () => Promise<boolean>, limitMs: number) {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await refused()) return performance.now() - started;
  }
  return Infinity;
}

describe.skipIf(!onPostgres)('caches across two server processes', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: { token: string; company: string };

  async function signUp(base: string, select?: string) {
    const email = `u-${Math.random().toString(36).slice(2)}@example.test`;
    const reg = await call(base, 'POST', '/api/v2/auth/register', undefined, { email, password: 'correct horse battery staple', firstname: 'A', lastname: 'B' });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const token = data(reg).token as string;
    const userUuid = (data(reg).user as Json).uuid as string;
    if (select) expect((await call(base, 'POST', `/api/v2/auth/companies/${select}/select`, token)).status).toBeLessThan(300);
    return { token, userUuid };
  }

  beforeAll(async () => {
    const url = await newTestDatabaseUrl();
    const env = { DATABASE_URL: url, AUTH_CACHE_MS: CACHE_MS, SCHEMA_CACHE_MS: CACHE_MS, REACTORS_ENABLED: 'false', PASSWORD_SCRYPT_LOG_N: '10', STATISTICS_CHECK_MS: '0' };
    [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    const user = await signUp(a.url);
    const company = await call(a.url, 'POST', '/api/v2/companies', user.token, { name: 'Two processes', subdomain: `two-${Date.now()}` });
    expect(company.status).toBe(201);
    const uuid = data(company).uuid as string;
    expect((await call(a.url, 'POST', `/api/v2/auth/companies/${uuid}/select`, user.token)).status).toBeLessThan(300);
    admin = { token: user.token, company: uuid };
  });
  afterAll(async () => {
    for (const p of [a, b]) p?.child.kill('SIGKILL');
  });

  it('a logout through one process is refused by the other at once', async () => {
    const member = await signUp(a.url);
    const me = () => call(b.url, 'GET', '/api/v2/auth/me', member.token);
    expect((await me()).status).toBe(200);
    expect((await me()).status).toBe(200); // now cached in b for a minute
    expect((await call(a.url, 'POST', '/api/v2/auth/logout', member.token)).status).toBe(200);
    const took = await timeUntil(async () => (await me()).status === 401, 5000);
    expect(took).toBeLessThan(BOUND_MS);
  });

  it('a role change through one process is refused by the other at once', async () => {
    const member = await signUp(a.url);
    expect((await call(a.url, 'POST', `/api/v2/companies/${admin.company}/users`, admin.token, { userUuid: member.userUuid, role: 'ADMIN' })).status).toBe(201);
    expect((await call(a.url, 'POST', `/api/v2/auth/companies/${admin.company}/select`, member.token)).status).toBeLessThan(300);
    const list = () => call(b.url, 'POST', `/api/v2/companies/${admin.company}/users/index`, member.token, { page: 0, limit: 5 });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    const change = await call(a.url, 'PUT', `/api/v2/companies/${admin.company}/users/${member.userUuid}`, admin.token, { role: 'USER', scopes: [] });
    expect(change.status, JSON.stringify(change.body)).toBe(200);
    const took = await timeUntil(async () => (await list()).status === 403, 5000);
    expect(took).toBeLessThan(BOUND_MS);
  });

  it('a property added through one process is known to the other at once', async () => {
    const object = await call(a.url, 'POST', '/api/v2/objects', admin.token, { name: 'gadget', label: 'Gadget' });
    expect(object.status, JSON.stringify(object.body)).toBe(201);
    const objectUuid = data(object).uuid as string;
    const first = await call(a.url, 'POST', `/api/v2/objects/${objectUuid}/properties`, admin.token, { name: 'title', label: 'Title', type: 'string', format: 'text' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // b reads (and caches) the object as it is: one property.
    expect((await call(b.url, 'POST', '/api/v2/gadget', admin.token, { properties: { title: 'one' } })).status).toBe(201);
    const added = await call(a.url, 'POST', `/api/v2/objects/${objectUuid}/properties`, admin.token, { name: 'colour', label: 'Colour', type: 'string', format: 'text' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const took = await timeUntil(async () => (await call(b.url, 'POST', '/api/v2/gadget', admin.token, { properties: { title: 'two', colour: 'red' } })).status === 201, 5000);
    expect(took).toBeLessThan(BOUND_MS);
  });
  it("a module definition changed through one process checks the other's page edits at once", async () => {
    expect((await call(a.url, 'POST', '/api/v2/cms/environments', admin.token, { key: 'production' })).status).toBe(201);
    const module = await call(a.url, 'POST', '/api/v2/modules', admin.token, { name: 'quote', fields: [{ name: 'said', type: 'text' }, { name: 'by', type: 'text' }] });
    expect(module.status, JSON.stringify(module.body)).toBe(201);
    const object = await call(a.url, 'POST', '/api/v2/objects', admin.token, { name: 'story', label: 'Story' });
    const objectUuid = data(object).uuid as string;
    expect((await call(a.url, 'POST', `/api/v2/objects/${objectUuid}/properties`, admin.token, { name: 'headline', label: 'Headline', type: 'string', format: 'text' })).status).toBe(201);
    expect((await call(a.url, 'POST', `/api/v2/traits/${objectUuid}/Page`, admin.token, { titleProperty: 'headline' })).status).toBeLessThan(300);
    const record = await call(a.url, 'POST', '/api/v2/story', admin.token, { properties: { headline: 'One' } });
    expect(record.status, JSON.stringify(record.body)).toBe(201);
    const recordUuid = data(record).uuid as string;
    expect((await call(a.url, 'POST', '/api/v2/webpages', admin.token, { recordUuid })).status).toBe(201);
    const patch = (expectedRevision: number, patches: unknown[]) => call(b.url, 'POST', `/api/v2/webpages/v2/pages/${recordUuid}/patch`, admin.token, { locale: 'en', expectedRevision, patches });
    // b reads (and caches) the definitions as they are: `by` is a field.
    const first = await patch(0, [{ op: 'addModule', module: { id: 'q', module: 'quote', fields: { said: 'Hi', by: 'Ada' } } }]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const changed = await call(a.url, 'PUT', `/api/v2/modules/${data(module).uuid as string}`, admin.token, { fields: [{ name: 'said', type: 'text' }] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // A batch b accepted would move the page on: every later try would be a 409, never the 400.
    const took = await timeUntil(async () => {
      const res = await patch(1, [{ op: 'setField', moduleId: 'q', field: 'by', value: 'Grace' }]);
      return res.status === 400 && /has no field "by"/.test(String(res.body.message));
    }, 5000);
    // Refused long before the cache's own minute: the notification did it (no speed asked here).
    expect(took).toBeLessThan(5000);
  });
});
