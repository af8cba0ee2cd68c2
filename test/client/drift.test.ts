import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typesOf } from '../../client/generate.js';
import { root } from '../support/server-process.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('the typed client and the server document', () => {
  it('client/api.generated.ts is what openapi-typescript makes of GET /api/v2/openapi.json now', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
    expect(res.statusCode).toBe(200);
    const fresh = await typesOf(res.json());
    const committed = readFileSync(join(root, 'client/api.generated.ts'), 'utf8');
    // On a difference, say where, not 470 kB of text: run `npm run client:generate` and commit.
    if (fresh !== committed) {
      const a = fresh.split('\n');
      const b = committed.split('\n');
      const at = a.findIndex((line, i) => line !== b[i]);
      expect.fail(`client/api.generated.ts drifted from the server's document at line ${at + 1}:\n  server:    ${a[at]}\n  committed: ${b[at]}\nRun \`npm run client:generate\` and commit the result.`);
    }
    expect(fresh.length).toBeGreaterThan(10_000);
    expect(fresh).toContain('"/api/v2/records/{uuid}/history"');
  });
});
