import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The OpenAPI document is the contract (issue 34): generators take it as it is, so it must be
 * valid OpenAPI 3, and it must not promise what the server refuses.
 */

type Param = { in: string; name: string; schema?: { type?: string; format?: string; maxLength?: number; maximum?: number; enum?: unknown[] } };
type Operation = { security?: unknown[]; responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>; parameters?: Param[]; requestBody?: { required?: boolean; content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }> } };
type Doc = { paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let doc: Doc;
let admin: TestTenant;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  admin = await signUpWithCompany(t.app);
  doc = (await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json();
}, 60_000);
afterAll(async () => t?.close());

const methods = ['get', 'post', 'put', 'patch', 'delete'];
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([m]) => methods.includes(m)).map(([method, op]) => ({ path, method, op })));

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3: every path parameter is declared (@readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });

  it('declares no path parameter longer than the router accepts', () => {
    // The limit the server gave its router: a longer parameter is a 414 before any route runs.
    const limit = (t.app.initialConfig as { routerOptions?: { maxParamLength?: number } }).routerOptions?.maxParamLength;
    expect(limit).toBeGreaterThan(0);
    const tooLong: string[] = [];
    for (const { path, method, op } of operations()) {
      for (const p of (op.parameters ?? []).filter((x) => x.in === 'path')) {
        const s = p.schema ?? {};
        // A uuid is 36 characters; an enum or a bounded integer has its own longest value.
        const longest =
          s.format === 'uuid' ? 36
          : s.enum ? Math.max(...s.enum.map((v) => String(v).length))
          : s.type === 'integer' && s.maximum !== undefined ? String(s.maximum).length
          : s.maxLength;
        if (longest === undefined || longest > limit!) tooLong.push(`${method.toUpperCase()} ${path} {${p.name}}: ${longest ?? 'no maxLength'}`);
      }
    }
    expect(tooLong).toEqual([]);
  });
});

describe('error responses', () => {
  it('every operation with a declared response lists the error body for 500, 503, and 401 / 404 / 400 where its kind can answer them', () => {
    const missing: string[] = [];
    // The app token endpoint's errors are the error body with RFC 6749's `error` and `error_description` added (AppTokenError).
    const errorBodies = ['#/components/schemas/ErrorBody', '#/components/schemas/AppTokenError'];
    const errorBody = (op: Operation, status: number) => errorBodies.includes(op.responses?.[status]?.content?.['application/json']?.schema?.$ref ?? '');
    for (const { path, method, op } of operations()) {
      if (!Object.keys(op.responses ?? {}).some((s) => s.startsWith('2') && s !== '200') && !op.responses?.['200']?.content) continue; // no declared response (file bytes)
      const expected = [500, 503];
      if ((op.security ?? []).length > 0) expected.push(401);
      if ((op.parameters ?? []).some((p) => p.in === 'path')) expected.push(404, 400);
      if (op.requestBody) expected.push(400, 415);
      for (const status of expected) if (!errorBody(op, status)) missing.push(`${method.toUpperCase()} ${path} ${status}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the upload routes', () => {
  const uploads = [
    ['post', '/api/v2/files', 'binary'],
    ['post', '/api/v2/files/bulk', 'array'],
    ['post', '/api/v2/webpages/{uuid}/uploadFile', 'binary'],
    ['post', '/api/v2/webpages/uploadFile', 'binary'],
    ['post', '/api/v2/forms/public/{companyUuid}/{formUuid}/upload', 'binary'],
  ] as const;

  it('document a multipart/form-data requestBody with the file part(s) they read', () => {
    for (const [method, path, kind] of uploads) {
      const body = doc.paths[path]?.[method]?.requestBody;
      const schema = body?.content?.['multipart/form-data']?.schema as { properties?: Record<string, { type?: string; format?: string }>; required?: string[] } | undefined;
      expect({ path, required: schema?.required, type: schema?.properties?.file?.type, format: schema?.properties?.file?.format }).toEqual({
        path,
        required: ['file'],
        type: kind === 'array' ? 'array' : 'string',
        format: kind === 'array' ? undefined : 'binary',
      });
    }
    // POST /files also takes the bytes themselves.
    expect(doc.paths['/api/v2/files']!.post!.requestBody!.content!['application/octet-stream']).toBeDefined();
  });

  it('answer a body that is not multipart with 415 and the error body (a JSON body, a text body)', async () => {
    for (const [method, path] of uploads) {
      const url = path.replace(/\{[^}]+\}/g, () => randomUUID());
      for (const [type, payload] of [['application/json', '{"file":"x"}'], ['text/plain', 'x']] as const) {
        const res = await t.app.inject({ method: method.toUpperCase() as 'POST', url, headers: { ...admin.headers, 'content-type': type }, payload });
        expect(`${path} ${type} ${res.statusCode}`).toBe(`${path} ${type} 415`);
        const body = res.json();
        expect(body).toMatchObject({ status: 415, requestId: res.headers['x-request-id'], roles: [], scopes: [] });
        expect(body.errors[0].correctionSuggestion).toMatch(/multipart\/form-data/);
      }
    }
    // Without a token the authentication answers first.
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/files', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode).toBe(401);
  });
});
