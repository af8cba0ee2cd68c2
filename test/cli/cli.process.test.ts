import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { build } from 'esbuild';
import { root } from '../support/server-process.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// The `platform` command run as a process (bundled once by esbuild: a tsx start per run costs
// seconds on a loaded machine) against the real server listening on loopback (issue 21 item 5).
const run = promisify(execFile);
let t: TestApp;
let server: { url: string };
let cli: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let objectName: string;
const email = `cli-${Date.now()}@example.test`;
const password = 'correct horse battery staple';

async function call(method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as { data: any };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Runs `platform ...args`; resolves with its output and exit code (never throws on a non-zero exit). */
async function platform(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'platform-cli-'));
  // Inside the repository, so that the bundle's imports resolve to its node_modules.
  cli = join(root, 'node_modules', '.cache', `platform-cli-${process.pid}.mjs`);
  await build({ entryPoints: [join(root, 'cli/main.ts')], bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', outfile: cli, logLevel: 'warning', absWorkingDir: root });
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address() as { port: number };
  server = { url: `http://127.0.0.1:${address.port}` };
  const reg = await call('POST', '/api/v2/auth/register', undefined, { email, password, firstname: 'Cli', lastname: 'User' });
  const company = await call('POST', '/api/v2/companies', reg.token, { name: 'CLI company', subdomain: `cli-${Date.now()}` });
  await call('POST', `/api/v2/auth/companies/${company.uuid}/select`, reg.token);
  objectName = `ticket_${Date.now().toString(36)}`;
  const object = await call('POST', '/api/v2/objects', reg.token, { name: objectName, label: 'Ticket' });
  await call('POST', `/api/v2/objects/${object.uuid}/properties`, reg.token, { name: 'title', label: 'Title', type: 'string', format: 'text', required: true });
  await call('POST', `/api/v2/objects/${object.uuid}/properties`, reg.token, { name: 'score', label: 'Score', type: 'number', format: 'number' });
  await call('POST', `/api/v2/objects/${object.uuid}/properties`, reg.token, { name: 'email', label: 'E-mail', type: 'string', format: 'email' });
  env = { ...process.env, PLATFORM_CONFIG: join(dir, 'config.json'), PLATFORM_URL: '', PLATFORM_TOKEN: '', PLATFORM_COMPANY: '', NODE_NO_WARNINGS: '1' };
  const login = await platform('login', '--url', server.url, '--email', email, '--password', password);
  expect(login.code, login.stderr).toBe(0);
  expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  const select = await platform('companies', 'select', company.uuid);
  expect(select.code, select.stderr).toBe(0);
  expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toMatchObject({ url: server.url, company: company.uuid, email });
}, 120_000);

afterAll(async () => {
  await t?.close();
  rmSync(cli, { force: true });
  rmSync(dir, { recursive: true, force: true });
});

describe('platform records import / export', () => {
  it('imports a CSV with 10 bad rows: the rest are created, the 10 listed with their errors; the export gives them back', async () => {
    const bad = new Set([3, 7, 11, 15, 19, 23, 27, 31, 35, 39]);
    const lines = ['title,score,email'];
    for (let i = 1; i <= 40; i++) {
      if (!bad.has(i)) lines.push(`"Ticket ${i}, with a comma",${i * 1.5},t${i}@example.com`);
      else if (i % 3 === 0) lines.push(`Ticket ${i},not a number,t${i}@example.com`);
      else if (i % 3 === 1) lines.push(`Ticket ${i},${i},not an e-mail`);
      else lines.push(`,${i},t${i}@example.com`); // title is required
    }
    const file = join(dir, 'tickets.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await platform('records', 'import', objectName, file, '--concurrency', '8', '--rejects', join(dir, 'rejects.ndjson'));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/imported 30 of 40 rows .* rejected 10/);
    const listed = [...r.stdout.matchAll(/^ {2}row (\d+): (.+)$/gm)].map((m) => [Number(m[1]), m[2]!] as const);
    expect(listed.map(([n]) => n)).toEqual([...bad]);
    for (const [n, error] of listed) expect(error, `row ${n}`).toMatch(n % 3 === 0 ? /score/ : n % 3 === 1 ? /email/ : /title/);
    const rejects = readFileSync(join(dir, 'rejects.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rejects.map((x) => x.row).sort((a, b) => a - b)).toEqual([...bad]);

    const out = join(dir, 'export.csv');
    const e = await platform('records', 'export', objectName, out);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toMatch(/exported 30 records/);
    const exported = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
    expect(Object.keys(exported[0]!)).toEqual(['uuid', 'title', 'score', 'email']);
    const good = [...Array(40).keys()].map((i) => i + 1).filter((i) => !bad.has(i));
    const key = (r: Record<string, string>) => r.title!;
    expect(exported.map((x) => ({ title: x.title, score: x.score, email: x.email })).sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      good.map((i) => ({ title: `Ticket ${i}, with a comma`, score: String(i * 1.5), email: `t${i}@example.com` })).sort((a, b) => key(a).localeCompare(key(b))),
    );

    // Round trip: the export, uuids and all, imported again is refused row by row (the uuids are taken),
    // and its NDJSON export holds the same records as the CSV one.
    const nd = join(dir, 'export.ndjson');
    expect((await platform('records', 'export', objectName, nd)).code).toBe(0);
    const records = readFileSync(nd, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((x) => x.uuid).sort()).toEqual(exported.map((x) => x.uuid).sort());
    const byUuid = new Map(exported.map((x) => [x.uuid, x]));
    for (const x of records) expect({ title: x.properties.title, score: String(x.properties.score), email: x.properties.email }).toEqual({ title: byUuid.get(x.uuid)!.title, score: byUuid.get(x.uuid)!.score, email: byUuid.get(x.uuid)!.email });
  }, 120_000);

  it('imports NDJSON with the uuids it names; the NDJSON export gives them back', async () => {
    const file = join(dir, 'in.ndjson');
    const uuids = [...Array(5).keys()].map((i) => `00000000-0000-4000-8000-00000000010${i}`);
    writeFileSync(file, uuids.map((uuid, i) => JSON.stringify({ uuid, properties: { title: `N${i}`, score: i } })).join('\n'));
    const r = await platform('records', 'import', objectName, file);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported 5 of 5 rows/);
    const out = (await platform('records', 'export', objectName, '--format', 'ndjson')).stdout.trim().split('\n').map((l) => JSON.parse(l));
    const mine = out.filter((x) => uuids.includes(x.uuid)).map((x) => [x.uuid, x.properties.title, x.properties.score]);
    // Created concurrently: the export's order (createdAt) is not the file's.
    expect(mine.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual(uuids.map((u, i) => [u, `N${i}`, i]));
  }, 60_000);
});

describe('platform events tail', () => {
  it('prints the events of one request, and of one type', async () => {
    const r = await platform('events', 'tail', '--type', 'RecordCreated', '-n', '3', '--json');
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(events).toHaveLength(3);
    for (const e of events) expect(e.type).toBe('RecordCreated');
    const one = await platform('events', 'tail', '--request-id', events[0].requestId, '--json');
    const mine = one.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(mine.length).toBeGreaterThanOrEqual(1);
    for (const e of mine) expect(e.requestId).toBe(events[0].requestId);
  }, 60_000);

  it('an API error prints its message and requestId, exit code 2', async () => {
    const r = await platform('records', 'export', 'no_such_object');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/platform: .*no_such_object/);
  }, 30_000);
});
