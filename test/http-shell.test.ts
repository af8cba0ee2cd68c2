import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/test-app.js';
import { joinCompany, signUpWithCompany, type TestTenant } from './support/actors.js';

let t: TestApp;
// The dev routes are DEVELOPER-only (docs/auth.md).
let dev: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ BODY_LIMIT_BYTES: '2048', PASSWORD_SCRYPT_LOG_N: '10' });
  dev = await joinCompany(t.app, await signUpWithCompany(t.app), { role: 'DEVELOPER' });
});
afterAll(async () => t.close());

function expectErrorBody(body: Record<string, unknown>, status: number) {
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(typeof body.requestId).toBe('string');
  expect(Array.isArray(body.roles)).toBe(true);
  expect(Array.isArray(body.scopes)).toBe(true);
  const errors = body.errors as Array<Record<string, string>>;
  expect(errors.length).toBeGreaterThan(0);
  for (const e of errors) {
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.type).toMatch(/^[A-Z_]+$/);
    expect(e.correctionSuggestion.length).toBeGreaterThan(0);
  }
}

describe('error bodies of the shell', () => {
  it('unknown route: 404 with the error body and the request id in header and body', async () => {
    // Signed in: without a token a path of the /{objectName} shape is a 401 (test/http-edge/quirks).
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/nope', headers: dev.headers });
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expectErrorBody(body, 404);
    expect(body.errors[0].type).toBe('NOT_FOUND');
    expect(res.headers['x-request-id']).toBe(body.requestId);
  });

  it('keeps a client X-Request-Id and replaces a malformed one', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/nope', headers: { 'x-request-id': 'support-trace-42' } });
    expect(res.headers['x-request-id']).toBe('support-trace-42');
    expect(res.json().requestId).toBe('support-trace-42');
    const bad = await t.app.inject({ method: 'GET', url: '/api/v2/nope', headers: { 'x-request-id': 'has spaces <and> junk' } });
    expect(bad.headers['x-request-id']).not.toBe('has spaces <and> junk');
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('wrong method on a known path: 405 with Allow', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/v2/dev/db-status' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expectErrorBody(res.json(), 405);
  });

  it('malformed JSON: 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers: { ...dev.headers, 'content-type': 'application/json' }, payload: '{"count":' });
    expect(res.statusCode).toBe(400);
    expectErrorBody(res.json(), 400);
  });

  it('body over the limit: 413', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers: dev.headers, payload: { count: 1, pad: 'x'.repeat(4096) } });
    expect(res.statusCode).toBe(413);
    expectErrorBody(res.json(), 413);
  });

  it('wrong content type: 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers: { ...dev.headers, 'content-type': 'application/xml' }, payload: '<count>1</count>' });
    expect(res.statusCode).toBe(415);
    expectErrorBody(res.json(), 415);
  });

  // Issue 32, item 7: fetch() with a string body and no Content-Type sends text/plain; it was
  // parsed as a string and answered 400 "expected object, received string".
  it.each([
    ['text/plain', '/api/v2/dev/stream-test', true],
    ['text/plain;charset=UTF-8', '/api/v2/dev/stream-test', true],
    ['text/plain;charset=UTF-8', '/api/v2/auth/login', false],
  ])('a %s body is 415 with the error body, naming application/json (%s)', async (type, url, signedIn) => {
    const payload = url.endsWith('login') ? JSON.stringify({ email: 'someone@example.com', password: 'secret-password' }) : JSON.stringify({ count: 1 });
    const res = await t.app.inject({ method: 'POST', url, headers: { ...(signedIn ? dev.headers : {}), 'content-type': type }, payload });
    expect(res.statusCode).toBe(415);
    expectErrorBody(res.json(), 415);
    expect(res.json().errors[0]).toMatchObject({ type: 'VALIDATION', correctionSuggestion: 'Send the body as application/json' });
  });

  it('validation: 400 naming the field, with a type and a correction suggestion', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers: dev.headers, payload: { count: 'many' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expectErrorBody(body, 400);
    expect(body.errors[0].message).toContain('body.count');
    expect(body.errors[0].type).toBe('INVALID_VALUE');
    expect(body.errors[0].correctionSuggestion).toContain('number');
  });

  it('no stackTrace on client errors', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/nope' });
    expect(res.json()).not.toHaveProperty('stackTrace');
  });
});

describe('developer utilities (spec 4.11)', () => {
  it('GET /dev/ greets in the success envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/dev/', headers: dev.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'success', data: expect.stringContaining('reachable') });
  });

  it('GET /dev/db-status reports the database and its migrations', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/dev/db-status', headers: dev.headers });
    expect(res.json().data).toMatchObject({ status: 'ok', database: t.platform.db.kind });
    expect(res.json().data.migrations).toBeGreaterThan(0);
  });

  it('POST /dev/stream-test streams count events with progress, then ends', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers: dev.headers, payload: { count: 4 } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    const data = res.body
      .split('\n\n')
      .filter((b) => b.includes('event: progress'))
      .map((b) => JSON.parse(b.split('data: ')[1]!));
    expect(data.map((d) => d.progress)).toEqual([25, 50, 75, 100]);
    expect(res.body).toContain('event: end');
  });

  it('refuses a count above the bound with the error body, not a stream', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers: dev.headers, payload: { count: 10_001 } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json().errors[0].correctionSuggestion).toContain('10000');
  });
});

describe('OpenAPI', () => {
  it('serves a 3.x document generated from the route schemas', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    const streamTest = doc.paths['/api/v2/dev/stream-test'].post;
    expect(streamTest.requestBody.content['application/json'].schema.properties.count.maximum).toBe(10000);
  });

  it('serves a docs page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body.toLowerCase()).toContain('swagger');
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, 422 for another body', async () => {
    const headers = { ...dev.headers, 'idempotency-key': 'key-1' };
    const first = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers, payload: { count: 2 } });
    const again = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers, payload: { count: 5 } });
    expect(again.statusCode).toBe(422);
    expectErrorBody(again.json(), 422);
    expect(first.statusCode).toBe(200);
  });

  it('replays a stored JSON response, marked as replayed', async () => {
    const headers = { ...dev.headers, 'idempotency-key': 'key-2' };
    const first = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers, payload: { count: 0 } });
    const second = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers, payload: { count: 0 } });
    expect(first.statusCode).toBe(400);
    expect(second.statusCode).toBe(400);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().requestId).toBe(first.json().requestId);
  });

  it('refuses a malformed key', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/dev/stream-test', headers: { ...dev.headers, 'idempotency-key': 'a b' }, payload: { count: 1 } });
    expect(res.statusCode).toBe(400);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After and the error body past the limit', async () => {
    const limited = await startTestApp({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) codes.push((await limited.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).statusCode);
      expect(codes).toEqual([200, 200, 200, 429, 429]);
      const res = await limited.app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expectErrorBody(res.json(), 429);
      const other = await limited.app.inject({ method: 'GET', url: '/api/v2/openapi.json', headers: { authorization: 'Bearer other-caller' } });
      expect(other.statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('index routes without a body', () => {
  it('list the first page with the default page size', async () => {
    const { signUpWithCompany, bearer } = await import('./support/actors.js');
    const tenant = await signUpWithCompany(t.app);
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/companies/index', headers: bearer(tenant.token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ page: 0, perPage: 25, total: 1, lastPage: 0 });
    expect(res.json().data).toHaveLength(1);
  });
});
