import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The OpenAPI document is the contract (issue 34): generators take it as it is, so it must be
 * valid OpenAPI 3, and it must not promise what the server refuses.
 */

type Param = { in: string; name: string; schema?: { type?: string; format?: string; maxLength?: number; maximum?: number; enum?: unknown[] } };
type Operation = { parameters?: Param[]; requestBody?: { required?: boolean; content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }> } };
type Doc = { paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let doc: Doc;
beforeAll(async () => {
  t = await startTestApp();
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
