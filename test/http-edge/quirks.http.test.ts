import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Issue 34's edge quirks: unknown methods, a 405's Allow, a `__proto__` key, and 401 before 404 in the object-named space. */

let t: TestApp;
let port: number;
let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as { port: number }).port;
  [a, b] = await twoTenants(t.app);
  const created = await t.app.inject({ method: 'POST', url: '/api/v2/objects', headers: a.headers, payload: { name: 'book', label: 'Book' } });
  expect(created.statusCode, created.body).toBe(201);
}, 60_000);
afterAll(async () => t?.close());

function expectError(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ status, requestId: res.headers['x-request-id'], roles: [], scopes: [] });
  expect(body.errors.length).toBeGreaterThan(0);
  for (const e of body.errors) expect(e.correctionSuggestion.length).toBeGreaterThan(0);
  return body as { message: string; errors: { message: string; type: string }[] };
}

/** A raw HTTP/1.1 exchange, for what Node's parser sees before Fastify does. */
function raw(text: string): Promise<{ statusCode: number; body: string; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = out.split('\r\n\r\n');
      const [status, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ statusCode: Number(status!.split(' ')[1]), body, headers });
    });
  });
}

describe('methods', () => {
  it('a method no route and not even Node knows is a 405 with the Allow of that path, in the error body', async () => {
    const res = await raw('FOO /api/v2/objects HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expectError(res, 405);
    expect(res.headers.allow).toBe('POST');
    // On a path no route has: a 404.
    expectError(await raw('FOO /api/v2/nowhere/at/all/here HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404);
  });

  it("a 405's Allow lists the methods of the request's own path, not of a parametric neighbour", async () => {
    // GET /webhooks/formats is its own path; PUT and DELETE are /webhooks/{uuid}'s.
    const res = await t.app.inject({ method: 'PATCH', url: '/api/v2/webhooks/formats', headers: a.headers });
    expectError(res, 405);
    expect(res.headers.allow).toBe('GET');
    const team = await t.app.inject({ method: 'PATCH', url: `/api/v2/teams/${randomUUID()}`, headers: a.headers });
    expect(team.headers.allow).toBe('GET, PUT, DELETE');
  });
});

describe('a JSON body with a __proto__ key', () => {
  it('is a 400 that says the key is refused, not that the JSON is invalid', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/objects', headers: { ...a.headers, 'content-type': 'application/json' }, payload: '{"name":"x","__proto__":{"admin":true}}' });
    const body = expectError(res, 400);
    expect(body.errors[0]!.message).toContain('__proto__');
    expect(JSON.stringify(body)).not.toMatch(/not valid JSON/);
    // Malformed JSON is still called that.
    const bad = await t.app.inject({ method: 'POST', url: '/api/v2/objects', headers: { ...a.headers, 'content-type': 'application/json' }, payload: '{"name":' });
    expect(expectError(bad, 400).errors[0]!.message).toMatch(/not valid JSON/);
  });
});

describe('the object-named space /api/v2/{objectName}/...', () => {
  const u = randomUUID();
  const requests = [
    ['GET', '/api/v2/book'],
    ['PATCH', `/api/v2/book/${u}`],
    ['GET', `/api/v2/book/${u}/restore`],
    ['POST', '/api/v2/book/not-a-uuid'],
    ['POST', '/api/v2/Book/index'],
    ['GET', '/api/v2/nosuchobject/index'],
  ] as const;

  it('answers 401 with the error body to a request without a token, whatever the name, uuid or method', async () => {
    for (const [method, url] of requests) {
      const res = await t.app.inject({ method, url });
      expect(`${method} ${url} ${res.statusCode}`).toBe(`${method} ${url} 401`);
      expectError(res, 401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    // A bad token is a 401 too.
    expectError(await t.app.inject({ method: 'GET', url: '/api/v2/book', headers: { authorization: `Bearer ${'x'.repeat(40)}` } }), 401);
  });

  it("signed in, another company's object name is answered as a name of nothing", async () => {
    for (const [method, url] of requests) {
      const theirs = await t.app.inject({ method, url, headers: b.headers });
      const nothing = await t.app.inject({ method, url: url.replace('book', 'nosuchobject').replace('Book', 'Nosuchobject'), headers: b.headers });
      const own = await t.app.inject({ method, url, headers: a.headers });
      expect([404, 405, 400], `${method} ${url}`).toContain(theirs.statusCode);
      expect(`${method} ${url} ${theirs.statusCode} ${JSON.parse(theirs.body).message}`).toBe(`${method} ${url} ${nothing.statusCode} ${JSON.parse(nothing.body).message}`);
      expect(own.statusCode).toBe(theirs.statusCode);
    }
  });

  it('public and known paths keep their own answers without a token', async () => {
    const login = await t.app.inject({ method: 'GET', url: '/api/v2/auth/login' });
    expectError(login, 405);
    expect(login.headers.allow).toBe('POST');
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).statusCode).toBe(200);
  });
});
