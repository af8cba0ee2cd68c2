import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../src/db/db.js';
import { createPgliteDb } from '../../src/db/pglite.db.js';
import { createPostgresDb } from '../../src/db/postgres.db.js';
import { newTestDatabaseUrl, onPostgres } from '../support/test-db.js';
import { root, startServerProcess, type ServerProcess } from '../support/server-process.js';

// Item 9 of issue 20: `npm start` runs the server as the process that gets the signal, and a
// SIGTERM stops it cleanly: requests in flight get their answers, and an append in flight is
// stored whole (event and read-model row) or not at all.

interface Answer {
  id: string;
  status?: number;
  error?: string;
}

/** A POST on a connection of its own; resolves with the answer or the failure, never rejects. */
function post(url: string, token: string, id: string, body: unknown): Promise<Answer> {
  return new Promise((resolve) => {
    const out: Answer = { id };
    const req = request(url, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': id } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ...out, status: res.statusCode }));
      res.on('error', (err) => resolve({ ...out, status: res.statusCode, error: err.message }));
    });
    req.on('error', (err) => resolve({ ...out, error: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end(JSON.stringify(body));
  });
}

async function json(base: string, method: string, path: string, token: string | undefined, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json()) as { data: Record<string, unknown> };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed.data;
}

describe('npm start and SIGTERM', () => {
  let server: ServerProcess;
  let dataDir = '';
  let dbUrl = '';

  beforeAll(async () => {
    // The test runs what `npm start` runs: the build of these sources (npm ci builds it too).
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'pipe', timeout: 240_000 });
    if (onPostgres) dbUrl = await newTestDatabaseUrl();
    else dataDir = mkdtempSync(join(tmpdir(), 'platform-npm-start-'));
    const env: Record<string, string> = { PASSWORD_SCRYPT_LOG_N: '10', LOG_LEVEL: 'warn', ...(dbUrl ? { DATABASE_URL: dbUrl } : { DATA_DIR: dataDir }) };
    server = await startServerProcess(env, ['npm', 'start']);
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints its steps, answers the health route, and on SIGTERM to npm answers every request it took up, stops, and keeps every append whole or not at all', async () => {
    expect(server.output()).toMatch(/migrating/);
    // PGlite: the data folder is locked while the server runs, and unlocked when it stops.
    if (dataDir) expect(existsSync(join(dataDir, '.platform.lock'))).toBe(true);
    const health = await fetch(`${server.url}/api/v2/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ message: 'OK', data: { status: 'ready', database: 'up', reactors: 'running' } });

    const email = `sigterm-${Date.now()}@example.test`;
    const reg = await json(server.url, 'POST', '/api/v2/auth/register', undefined, { email, password: 'correct horse battery staple', firstname: 'S', lastname: 'T' });
    const token = reg.token as string;
    const company = await json(server.url, 'POST', '/api/v2/companies', token, { name: 'Sigterm', subdomain: `sigterm-${Date.now()}` });
    await json(server.url, 'POST', `/api/v2/auth/companies/${company.uuid}/select`, token, {});
    const object = await json(server.url, 'POST', '/api/v2/objects', token, { name: 'ticket', label: 'Ticket' });
    await json(server.url, 'POST', `/api/v2/objects/${object.uuid}/properties`, token, { name: 'title', label: 'Title', type: 'string', format: 'text' });

    // A burst of creates, and SIGTERM to the npm process while they are in flight.
    const burst = Array.from({ length: 24 }, (_, i) => post(`${server.url}/api/v2/ticket`, token, `sigterm-${i}`, { properties: { title: `t${i}` } }));
    await new Promise((r) => setTimeout(r, 15));
    server.child.kill('SIGTERM');
    const answers = await Promise.all(burst);
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/SIGTERM: stopping/);
    expect(server.output()).toMatch(/stopped/);
    await expect(fetch(`${server.url}/api/v2/health`)).rejects.toThrow();
    if (dataDir) expect(existsSync(join(dataDir, '.platform.lock'))).toBe(false);

    // An answer is a success, never a 503 nor a response cut short. A request may be refused at
    // the door (the listener closed) or reset before the server read it (it sat in the kernel's
    // accept queue when the listener closed: a loaded machine reads slowly); such a request is
    // never stored, which the log below shows.
    for (const a of answers) {
      if (a.status !== undefined) {
        expect(a.error, JSON.stringify(a)).toBeUndefined();
        expect(a.status, JSON.stringify(a)).toBe(201);
      } else {
        expect(['ECONNREFUSED', 'ECONNRESET'], JSON.stringify(a)).toContain(a.error);
      }
    }
    expect(answers.filter((a) => a.status === 201).length).toBeGreaterThan(0);

    const db: Db = dbUrl ? createPostgresDb({ connectionString: dbUrl, max: 1 }) : await createPgliteDb(dataDir);
    try {
      const rows = await db.query<{ id: string; events: number; records: number }>(
        `select r.id,
                (select count(*)::int from events e where e.metadata->>'requestId' = r.id) as events,
                (select count(*)::int from events e join records rec on rec.tenant = e.tenant and 'record-' || rec.uuid::text = e.stream_id and rec.is_primary
                  where e.metadata->>'requestId' = r.id) as records
           from unnest($1::text[]) as r(id)`,
        [answers.map((a) => a.id)],
      );
      for (const row of rows) {
        const answer = answers.find((a) => a.id === row.id)!;
        // Whole (its event and its record) or nothing; stored exactly when it was answered 201:
        // no request the server took up went without its answer.
        expect([0, 1], JSON.stringify(row)).toContain(row.events);
        expect(row.records, JSON.stringify(row)).toBe(row.events);
        expect(row.events, JSON.stringify({ row, answer })).toBe(answer.status === 201 ? 1 : 0);
      }
    } finally {
      await db.close();
    }
  });
});
