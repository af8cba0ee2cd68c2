import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';

/**
 * A depth and string fuzz over every operation of the OpenAPI document the app serves: for each,
 * hostile bodies (5,000 deep, NUL, a lone surrogate, in values and in keys), hostile path
 * parameters (NUL, over the router's length, bad percent-encodings, a lone surrogate), hostile
 * query strings and a hostile Idempotency-Key. Not one answer may be 500 or above, every error
 * has the spec's body with the request id of its response, and no two answers share an id. Sent
 * as the ADMIN of a company, so the guards, not authentication, answer; bounded to a few
 * requests per operation so it stays in seconds.
 */

interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  params: string[];
  query: string[];
  bodyKeys: string[];
}

let t: TestApp;
let admin: TestTenant;
let operations: Operation[];

type Schema = { $ref?: string; properties?: Record<string, unknown>; anyOf?: Schema[]; oneOf?: Schema[] };

function bodyKeysOf(doc: { components?: { schemas?: Record<string, Schema> } }, schema: Schema | undefined): string[] {
  let s = schema;
  for (let i = 0; s && i < 5; i++) {
    if (s.$ref) s = doc.components?.schemas?.[s.$ref.split('/').pop()!];
    else if (s.anyOf ?? s.oneOf) s = (s.anyOf ?? s.oneOf)!.find((x) => x.$ref || x.properties);
    else break;
  }
  return Object.keys(s?.properties ?? {}).slice(0, 6);
}

beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  admin = await signUpWithCompany(t.app);
  const doc = (await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json();
  operations = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters = op.parameters ?? [];
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodyKeys: bodyKeysOf(doc, op.requestBody?.content?.['application/json']?.schema),
      });
    }
  }
}, 60_000);
afterAll(async () => t.close());

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '0' + '}'.repeat(n);
// A lone surrogate written as a JSON escape: JSON.stringify would keep it escaped the same way.
const LONE = '\\ud800';

/** A path with every parameter a fresh uuid, except `hostile` (already encoded for the URL). */
const fill = (op: Operation, hostile?: { name: string; value: string }) =>
  op.path.replace(/\{([^}]+)\}/g, (_, name: string) => (hostile?.name === name ? hostile.value : name.toLowerCase().includes('uuid') || name === 'from' || name === 'to' ? randomUUID() : 'thing'));

function requestsFor(op: Operation): InjectOptions[] {
  const out: InjectOptions[] = [];
  const headers = { ...admin.headers };
  const jsonHeaders = { ...headers, 'content-type': 'application/json' };
  const path = fill(op);
  if (op.method !== 'GET') {
    const keys = op.bodyKeys.length > 0 ? op.bodyKeys : ['name'];
    const withValue = (v: string) => `{${keys.map((k) => `"${k}":"${v}"`).join(',')}}`;
    for (const payload of [deep(5000), deepObject(5000), `{"${keys[0]}":${deep(5000)}}`, withValue('a\\u0000b'), withValue(`a${LONE}b`), `{"a\\u0000":1,"${keys[0]}":{"${LONE}":1}}`]) {
      out.push({ method: op.method, url: path, headers: jsonHeaders, payload });
    }
  }
  if (op.method === 'POST') out.push({ method: 'POST', url: path, headers: { ...jsonHeaders, 'idempotency-key': 'k\u00e9y' }, payload: '{}' });
  for (const name of op.params) {
    for (const value of ['a%00b', 'x'.repeat(101), '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%ZZ']) out.push({ method: op.method, url: fill(op, { name, value }), headers });
  }
  for (const name of [...op.query, 'probe']) {
    for (const value of ['a%00b', '%ED%A0%80', '%FF', '9'.repeat(400), '-1']) out.push({ method: op.method, url: `${path}?${name}=${value}&probe=%00`, headers });
  }
  return out;
}

function expectSpecBody(res: LightMyRequestResponse, where: string) {
  const body = JSON.parse(res.body);
  expect(body, where).toMatchObject({ status: res.statusCode, requestId: res.headers['x-request-id'] });
  expect(typeof body.message, where).toBe('string');
  expect(Array.isArray(body.roles) && Array.isArray(body.scopes), where).toBe(true);
  expect(body.errors.length, where).toBeGreaterThan(0);
  for (const e of body.errors) expect(typeof e.type === 'string' && e.correctionSuggestion.length > 0, where).toBe(true);
}

describe('fuzz of every OpenAPI operation', () => {
  it('finds the operations', () => {
    expect(operations.length).toBeGreaterThan(60);
    expect(operations.filter((o) => o.params.length > 0).length).toBeGreaterThan(30);
  });

  it('no answer is 500 or above; every error has the spec body and a request id of its own', async () => {
    const ids = new Set<string>();
    let sent = 0;
    const statuses = new Map<number, number>();
    for (const op of operations) {
      for (const request of requestsFor(op)) {
        const res = await t.app.inject(request);
        const where = `${request.method} ${String(request.url).slice(0, 160)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        sent++;
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expect(res.statusCode, where).toBeLessThan(500);
        const id = res.headers['x-request-id'] as string;
        expect(ids.has(id), `${where}: request id ${id} seen before`).toBe(false);
        ids.add(id);
        if (res.statusCode >= 400) expectSpecBody(res, where);
      }
    }
    expect(sent).toBeGreaterThan(1000);
    // Almost everything is refused (a hostile part in each request); the refusals are 4xx.
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
  }, 120_000);
});
