/**
 * bench:compare's requests and the checks of its two content modes (BENCH_CONTENT): what a reply
 * weighs, whether the two servers' replies have the same keys, and the writer the limit server's
 * same-content mode joins (the project's seeded user, copied into `limit_users`).
 */
import type { Pool } from 'undici';
import { randomUUID } from 'node:crypto';
import { createPostgresDb } from '../src/db/postgres.db.js';
import { auditUsers } from '../read-models/users.queries.js';

export interface Req {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
}

export type Content = 'plain' | 'same';

/** BENCH_CONTENT: `plain` (the limit server's rows as stored), `same` (the project's content), `both` (default). */
export function contentModes(value = process.env.BENCH_CONTENT ?? 'both'): Content[] {
  if (value === 'both') return ['plain', 'same'];
  if (value === 'plain' || value === 'same') return [value];
  throw new Error(`BENCH_CONTENT: plain, same or both, not ${value}`);
}

export const call = async (pool: Pool, req: Req, token?: string): Promise<{ status: number; json: () => Promise<any>; dump: () => Promise<void>; bytes: () => Promise<number> }> => {
  const res = await pool.request({
    method: req.method,
    path: req.path,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
  });
  return {
    status: res.statusCode,
    json: () => res.body.json(),
    dump: async () => {
      // Every byte read (dump() would stop at its limit and close the connection), none decoded.
      for await (const _ of res.body);
    },
    bytes: async () => {
      let n = 0;
      for await (const chunk of res.body) n += (chunk as Buffer).length;
      return n;
    },
  };
};

/** A reply's average size in bytes over `count` requests (`req(0..count-1)`): read before an operation is timed. */
export async function replyBytes(pool: Pool, req: (i: number) => Req, token: string | undefined, count = 20): Promise<number> {
  let total = 0;
  for (let i = 0; i < count; i++) total += await (await call(pool, req(i), token)).bytes();
  return total / count;
}

/** The keys of a JSON value, recursively (`data.createdBy.user.role`; an array's elements as `[]`), with the type of what each holds. */
function keyPaths(value: unknown, at: string, out: Map<string, Set<string>>) {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (at) (out.get(at) ?? out.set(at, new Set()).get(at)!).add(type);
  if (Array.isArray(value)) for (const v of value) keyPaths(v, `${at}[]`, out);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) keyPaths(v, at ? `${at}.${k}` : k, out);
}

/** What one reply has that the other has not: keys missing on either side, and keys whose values are of other types. */
export function keyDifferences(limit: unknown, project: unknown): string[] {
  const a = new Map<string, Set<string>>();
  const b = new Map<string, Set<string>>();
  keyPaths(limit, '', a);
  keyPaths(project, '', b);
  const out: string[] = [];
  for (const k of a.keys()) if (!b.has(k)) out.push(`${k}: limit only`);
  for (const k of b.keys()) if (!a.has(k)) out.push(`${k}: project only`);
  for (const [k, types] of a) {
    const other = b.get(k);
    // null against an object or a value is a field left empty on one side, not another shape.
    const shape = (s: Set<string>) => [...s].filter((t) => t !== 'null').sort().join('|');
    if (other && shape(types) && shape(other) && shape(types) !== shape(other)) out.push(`${k}: ${shape(types)} (limit) / ${shape(other)} (project)`);
  }
  return out;
}

/**
 * The writer of the limit server's records for its same-content mode: the project's seeded user
 * (the writer of its record `sample`), copied into `limit_users` under the limit side's writer
 * uuid. A database seeded before the mode existed has limit records without writers: they are
 * given `limitWriter` (a fresh one when none is known) here, once.
 */
export async function limitWriterSetup(url: string, limit: Pool, projectRecord: string, limitWriter: string | undefined): Promise<string> {
  const db = createPostgresDb({ connectionString: url, max: 1 });
  try {
    const writer = limitWriter ?? randomUUID();
    const [rec] = await db.query<{ tenant: string; created_by: string }>('select tenant, created_by from records where uuid = $1', [projectRecord]);
    if (!rec) throw new Error(`no project record ${projectRecord}`);
    const [user] = await auditUsers(db, rec.tenant, [rec.created_by]);
    if (!user) throw new Error(`no user ${rec.created_by}`);
    const member = user.role !== null && user.active === true;
    const scopes = member ? [...new Set([...(user.scopes ?? []), ...user.team_scopes])].sort() : [];
    const res = await call(limit, {
      method: 'POST',
      path: '/users',
      body: { uuid: writer, email: user.email, firstname: user.firstname, lastname: user.lastname, role: member ? user.role : null, scopes, createdAt: Number(user.created_at), updatedAt: Number(user.updated_at), revision: user.revision },
    });
    await res.dump();
    if (res.status !== 201) throw new Error(`limit POST /users: ${res.status}`);
    const unwritten = await db.query<{ n: number }>('with w as (update limit_records set created_by = $1, updated_by = $1 where created_by is null returning 1) select count(*)::int as n from w', [writer]);
    if (unwritten[0]!.n > 0) await db.query('vacuum analyze limit_records');
    return writer;
  } finally {
    await db.close();
  }
}
