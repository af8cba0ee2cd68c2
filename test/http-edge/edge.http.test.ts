import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/http/json-body.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { anObjectWith } from '../records/records-fixtures.js';

let t: TestApp;
let admin: TestTenant;
let objectName: string;

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  admin = await signUpWithCompany(t.app);
  objectName = (await anObjectWith(t.app, admin, { title: { type: 'string', format: 'text' }, doc: { type: 'json', format: 'json' } })).name;
}, 60_000);
afterAll(async () => t.close());

/** The spec's error body (part 7), with this status and the response's own request id. */
function expectSpecError(res: LightMyRequestResponse | { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, type?: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ status, requestId: res.headers['x-request-id'], roles: [], scopes: [] });
  expect(typeof body.message).toBe('string');
  expect(body.errors.length).toBeGreaterThan(0);
  for (const e of body.errors) expect(e.correctionSuggestion.length).toBeGreaterThan(0);
  if (type) expect(body.errors[0].type).toBe(type);
  return body;
}

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const json = (method: 'POST' | 'PUT', url: string, payload: string) =>
  t.app.inject({ method, url, headers: { ...admin.headers, 'content-type': 'application/json' }, payload });

describe('nesting depth of JSON bodies', () => {
  it('a body nested 5,000 deep is a 400 with the error body on every kind of route, never a stack overflow', async () => {
    const routes: ['POST' | 'PUT', string][] = [
      ['POST', `/api/v2/${objectName}`],
      ['POST', `/api/v2/${objectName}/index`],
      ['PUT', `/api/v2/companies/${admin.companyUuid}/settings`],
      ['POST', '/api/v2/webhooks'],
      ['POST', '/api/v2/sync'],
      ['POST', '/api/v2/teams'],
      ['POST', '/api/v2/auth/login'],
      ['POST', '/api/v2/filters'],
    ];
    for (const [method, url] of routes) {
      for (const body of [nestedArrays(5000), nestedObjects(5000), `{"properties":{"doc":${nestedArrays(5000)}}}`]) {
        const error = expectSpecError(await json(method, url, body), 400, 'VALIDATION');
        expect(error.errors[0].correctionSuggestion).toContain(String(MAX_JSON_DEPTH));
      }
    }
  });

  it('a value as deep as records allow is stored (a json property 20 deep, the body 22)', async () => {
    const deep = JSON.parse(nestedObjects(19));
    const res = await json('POST', `/api/v2/${objectName}`, JSON.stringify({ properties: { title: 'deep', doc: deep } }));
    expect(res.statusCode, res.body).toBe(201);
  });

  it('counts depth exactly as JSON nests, strings and escapes included (property)', () => {
    const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, max) => {
        expect(nestsDeeperThan(JSON.stringify(value), max)).toBe(depthOf(value) > max);
      }),
    );
    expect(nestsDeeperThan('{"a":"[[[[\\"[[[["}', 1)).toBe(false);
  });
});

describe('one string guard for every route', () => {
  const nul = 'bad\u0000value';
  const lone = 'bad\ud800value';
  it('NUL and unpaired surrogates in bodies are a 400 INVALID_VALUE on every module, nothing stored', async () => {
    const cases: ['POST' | 'PUT', string, (s: string) => Record<string, unknown>][] = [
      ['PUT', `/api/v2/companies/${admin.companyUuid}/settings`, (s) => ({ website: s })],
      ['PUT', `/api/v2/companies/${admin.companyUuid}`, (s) => ({ name: s })],
      ['POST', '/api/v2/webhooks', (s) => ({ url: 'https://hooks.example.com/in', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', topic: `record.${objectName}.created`, name: s })],
      ['POST', '/api/v2/sync', (s) => ({ name: s, sourceObjectUuid: randomUUID(), targetObjectUuid: randomUUID(), relationUuid: randomUUID(), mappings: [{ source: 'a', target: 'b' }] })],
      ['POST', '/api/v2/teams', (s) => ({ name: s })],
      ['POST', `/api/v2/companies/${admin.companyUuid}/users`, (s) => ({ email: `${s}@example.test`, role: 'USER' })],
      ['POST', '/api/v2/auth/register', (s) => ({ email: 'x@example.test', password: 'correct horse battery staple', firstname: s, lastname: 'L' })],
      ['POST', '/api/v2/objects', (s) => ({ name: 'thing', label: s })],
      ['POST', `/api/v2/${objectName}`, (s) => ({ properties: { title: s } })],
      ['POST', `/api/v2/${objectName}`, (s) => ({ properties: { doc: { [s]: 1 } } })],
      ['POST', `/api/v2/${objectName}/index`, (s) => ({ filters: [{ key: 'title', operator: 'contains', value: s }] })],
    ];
    const [before] = await t.platform.db.query<{ n: number }>('select count(*)::int as n from events');
    for (const [method, url, body] of cases) {
      for (const s of [nul, lone]) {
        const error = expectSpecError(await t.app.inject({ method, url, headers: admin.headers, payload: body(s) }), 400, 'INVALID_VALUE');
        expect(error.message, url).toMatch(/^body\./);
      }
    }
    const [after] = await t.platform.db.query<{ n: number }>('select count(*)::int as n from events');
    expect(after!.n).toBe(before!.n);
  });

  it('covers the query string and path parameters too', async () => {
    expectSpecError(await t.app.inject({ method: 'GET', url: `/api/v2/records/${randomUUID()}/history?page=0&x=a%00b`, headers: admin.headers }), 400, 'INVALID_VALUE');
    const param = expectSpecError(await t.app.inject({ method: 'GET', url: '/api/v2/teams/bad%00uuid', headers: admin.headers }), 400, 'INVALID_VALUE');
    expect(param.message).toMatch(/^params\.uuid /);
    const objectParam = expectSpecError(await t.app.inject({ method: 'POST', url: '/api/v2/bad%00name/index', headers: admin.headers }), 400, 'INVALID_VALUE');
    expect(objectParam.message).toMatch(/^params\./);
  });

  it('refuses a stored header that is not visible ASCII', async () => {
    expectSpecError(await t.app.inject({ method: 'POST', url: '/api/v2/teams', headers: { ...admin.headers, 'idempotency-key': 'caf\u00e9' }, payload: { name: 'x' } }), 400);
  });
});

describe('router and HTTP-parser errors have the spec body', () => {
  it('a path parameter over the router\'s maximum length: 414', async () => {
    expectSpecError(await t.app.inject({ method: 'GET', url: `/api/v2/teams/${'a'.repeat(150)}`, headers: admin.headers }), 414);
  });

  it('a bad percent-encoding: 400', async () => {
    expectSpecError(await t.app.inject({ method: 'GET', url: '/api/v2/teams/%E0%A4%A', headers: admin.headers }), 400);
    expectSpecError(await t.app.inject({ method: 'GET', url: '/api/v2/teams/%ED%A0%80', headers: admin.headers }), 400);
  });

  it('a file the docs route does not have: 404 (not 405: GET is the route\'s own method)', async () => {
    expectSpecError(await t.app.inject({ method: 'GET', url: '/api/v2/docs/static/nope.js' }), 404, 'NOT_FOUND');
  });

  it('a request Node cannot parse gets the error body on the socket', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write('GET /api/v2/teams HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    });
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    const requestId = /x-request-id: (\S+)/i.exec(head!)?.[1];
    expect(JSON.parse(body!)).toMatchObject({ status: 400, requestId, errors: [{ type: 'VALIDATION' }] });
  });
});

describe('pages from 0', () => {
  it('page 0 is the first page, page 1 the second, the page served is echoed; a limit over 100 is a 400 naming 100', async () => {
    for (const name of ['p-one', 'p-two', 'p-three']) await t.app.inject({ method: 'POST', url: '/api/v2/teams', headers: admin.headers, payload: { name } });
    const first = (await json('POST', '/api/v2/teams/index', JSON.stringify({ limit: 2, page: 0 }))).json();
    const second = (await json('POST', '/api/v2/teams/index', JSON.stringify({ limit: 2, page: 1 }))).json();
    expect(first.page).toBe(0);
    expect(second.page).toBe(1);
    expect(first.lastPage).toBe(Math.ceil(first.total / 2) - 1);
    const seen = [...first.data, ...second.data].map((x: { uuid: string }) => x.uuid);
    expect(new Set(seen).size).toBe(seen.length);
    const error = expectSpecError(await json('POST', '/api/v2/teams/index', JSON.stringify({ limit: 101 })), 400, 'INVALID_VALUE');
    expect(JSON.stringify(error.errors)).toContain('at most 100');
    expectSpecError(await json('POST', '/api/v2/teams/index', JSON.stringify({ page: -1 })), 400);
  });
});
