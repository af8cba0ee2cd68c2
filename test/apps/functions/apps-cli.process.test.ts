import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../../support/server-process.js';
import { startTestApp, type TestApp } from '../../support/test-app.js';

// The app developer's CLI (issue 35 item 6), run as a user would (bundled once by esbuild, as in
// test/cli/cli.process.test.ts) against the real server on loopback: from `apps init` to a
// deployed function that a job runs, a second deploy, and a rollback.
const run = promisify(execFile);
let t: TestApp;
let cli: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let appUuid: string;

async function platform(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function call(url: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body !== undefined ? JSON.stringify(body) : undefined });
  const json = (await res.json()) as { data: any };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'platform-app-project-'));
  cli = join(root, 'node_modules', '.cache', `platform-cli-apps-${process.pid}.mjs`);
  await build({ entryPoints: [join(root, 'cli/main.ts')], bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', outfile: cli, logLevel: 'warning', absWorkingDir: root });
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', APPS_SECRETS_KEY: randomBytes(32).toString('base64'), APPS_JOBS_POLL_MS: '100', APPS_LOGS_POLL_MS: '100' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const reg = await call(url, 'POST', '/api/v2/auth/register', undefined, { email: `dev-${Date.now()}@example.test`, password: 'correct horse battery staple', firstname: 'Dev', lastname: 'Eloper' });
  const company = await call(url, 'POST', '/api/v2/companies', reg.token, { name: 'App maker', subdomain: `maker-${Date.now()}` });
  await call(url, 'POST', `/api/v2/auth/companies/${company.uuid}/select`, reg.token);
  appUuid = (await call(url, 'POST', '/api/v2/apps/private', reg.token, { label: 'CLI app' })).uuid;
  env = { ...process.env, PLATFORM_URL: url, PLATFORM_TOKEN: reg.token, PLATFORM_CONFIG: join(dir, '.platform.json') };
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(cli, { force: true });
});

describe('platform apps', () => {
  it('init, build, deploy, invoke, a job, logs, a second deploy and a rollback', async () => {
    const init = await platform('apps', 'init', '.', '--app', appUuid);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('created platform-app.json');
    expect(JSON.parse(readFileSync(join(dir, 'platform-app.json'), 'utf8'))).toMatchObject({ appUuid, entry: 'src/index.js', manifest: { functions: [{ name: 'hello' }] } });
    // The scaffold's own test passes.
    await run(process.execPath, ['--test', 'test/'], { cwd: dir });

    const built = await platform('apps', 'build');
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toMatch(/built .*bundle\.js \(\d+ bytes\): hello/);

    const deployed = await platform('apps', 'deploy', '--note', 'first');
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/deployed #1 [0-9a-f-]{36} \(active\)/);

    const invoked = await platform('apps', 'invoke', 'hello', '--input', '{"name":"Ada"}');
    expect(invoked.code, invoked.stderr).toBe(0);
    expect(invoked.stdout).toContain('[info] hello called with {"name":"Ada"}');
    expect(invoked.stdout).toContain('"greeting":"Hello, Ada"');

    const job = await platform('apps', 'job', 'hello', '--input', '{"name":"Job"}', '--wait');
    expect(job.code, job.stderr).toBe(0);
    expect(job.stdout).toMatch(/SUCCEEDED after 1 attempt/);
    expect(job.stdout).toContain('"greeting":"Hello, Job"');

    const logs = await platform('apps', 'logs', '-n', '5');
    expect(logs.stdout).toMatch(/info  hello: hello SUCCEEDED/);

    writeFileSync(join(dir, 'src/index.js'), "export async function hello(input) { return { greeting: 'v2' }; }\n");
    expect((await platform('apps', 'deploy', '--note', 'second')).stdout).toMatch(/deployed #2/);
    expect((await platform('apps', 'invoke', 'hello')).stdout).toContain('"greeting":"v2"');
    const history = await platform('apps', 'deploys');
    expect(history.stdout.trim().split('\n').map((l) => l.split(' ')[0] + (l.includes(' active') ? ' active' : ''))).toEqual(['#2 active', '#1']);
    const back = await platform('apps', 'rollback', '#1');
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/rolled back to #1/);
    expect((await platform('apps', 'invoke', 'hello', '--input', '{"name":"again"}')).stdout).toContain('"greeting":"Hello, again"');

    writeFileSync(join(dir, 'platform-app.json'), JSON.stringify({ appUuid, entry: 'src/index.js', manifest: { functions: [{ name: 'hello' }, { name: 'missing' }] } }));
    const bad = await platform('apps', 'build');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('does not export: missing');
  }, 400_000);

  it('logs --follow prints new lines as they come', async () => {
    writeFileSync(join(dir, 'platform-app.json'), JSON.stringify({ appUuid, entry: 'src/index.js', manifest: { functions: [{ name: 'hello' }] } }));
    const child = execFile(process.execPath, [cli, 'apps', 'logs', '-n', '1', '--follow'], { cwd: dir, env });
    let seen = '';
    child.stdout!.on('data', (d) => (seen += String(d)));
    // The stream is open once the last line is printed.
    for (const end = Date.now() + 60_000; !seen.includes('hello') && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
    await platform('apps', 'invoke', 'hello', '--input', '{"name":"Followed"}');
    const until = Date.now() + 60_000;
    while (!seen.includes('Followed') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    expect(seen).toContain('hello called with {"name":"Followed"}');
  }, 200_000);
});
