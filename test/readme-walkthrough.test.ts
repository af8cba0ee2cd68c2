import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from './support/test-app.js';

// Item 9 of issue 20: the README's walk-through runs as written. Its shell blocks (between the
// walkthrough markers) are run in order, by bash, against a fresh server on a test database.
const readme = readFileSync(resolve(import.meta.dirname, '../README.md'), 'utf8');
const section = readme.slice(readme.indexOf('<!-- walkthrough:start -->'), readme.indexOf('<!-- walkthrough:end -->'));
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

const has = (tool: string) => {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const tools = has('bash') && has('curl') && has('jq');
if (!tools) process.stdout.write('readme-walkthrough: skipped (needs bash, curl and jq)\n');

describe.skipIf(!tools)('the README walk-through', () => {
  let t: TestApp;
  let base = '';
  beforeAll(async () => {
    t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => t?.close());

  it('has its steps in shell blocks', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    for (const step of ['/auth/register', '/companies', '/select', '/objects', '/properties', '/book/index', '/history', '/events/index']) {
      expect(blocks.join('\n')).toContain(step);
    }
  });

  it('runs as written: every step answers, and the record shows in the index, its history and the event log', async () => {
    const script = `set -euo pipefail\n${blocks.join('\n')}`;
    // Not execFileSync: the server answering curl runs in this process.
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { env: { ...process.env, BASE: base }, timeout: 60_000 });
    expect(stdout).toContain('"status": "ready"');
    expect(stdout).toContain('"title"');
    expect(stdout).toMatch(/"total": 1,\s*"titles": \[\s*"Notes on the Analytical Engine"\s*\]/);
    expect(stdout).toMatch(/"type": "RecordCreated",\s*"requestId": "first-book"/);
    expect(stdout).toMatch(/"type": "RecordCreated",\s*"streamId": "record-[0-9a-f-]{36}",\s*"requestId": "first-book"/);
  });
});
