// How the server serves the console's files (src/console/console.module.ts), apart from any
// database: a built folder with its security headers, and a missing build as a 503 error body.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { registerConsole } from '../../src/console/console.module.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function appOver(files: Record<string, string> | null) {
  const dir = mkdtempSync(join(tmpdir(), 'console-serving-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files ?? {})) writeFileSync(join(dir, name), text);
  const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  await registerConsole(app, dir);
  await app.ready();
  return app;
}

describe('serving /console', () => {
  it('answers the page at /console and /console/, its script with its type, and the security headers', async () => {
    const app = await appOver({ 'index.html': '<!doctype html><title>c</title>', 'console.js': 'export {}' });
    for (const url of ['/console/', '/console']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<title>c</title>');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const js = await app.inject({ url: '/console/console.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect((await app.inject({ url: '/console/../package.json' })).statusCode).not.toBe(200);
    await app.close();
  });

  it('without a build, /console answers 503 with the spec error body saying how to build it', async () => {
    const app = await appOver(null);
    const res = await app.inject({ url: '/console/', headers: { 'x-request-id': 'r-1' } });
    expect(res.statusCode).toBe(503);
    const body = res.json();
    expect(body.status).toBe(503);
    expect(body.message).toBe('The web console is not built');
    expect(body.errors[0].correctionSuggestion).toMatch(/npm run build/);
    expect(typeof body.requestId).toBe('string');
    await app.close();
  });
});
