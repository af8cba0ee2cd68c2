/**
 * The limit server of `npm run bench:compare`: Fastify and pg over one JSONB table, no history, no
 * validation, no tenants. What a plain JSONB design gives on the same PostgreSQL. LIMIT_DATABASE_URL, PORT.
 *
 * The caller is the user whose uuid is the bearer token (a stand-in for a session): creates and
 * updates store it as the record's `created_by` / `updated_by`, and each write adds one to the
 * record's `revision`, in both modes (one table serves both).
 *
 * LIMIT_CONTENT=plain (default): replies carry the row as stored (`{id, data, created_at,
 * updated_at}`; a page is `{total, data}`), about 12 KB a 25-record page.
 * LIMIT_CONTENT=same: replies carry what the project's do (spec 2.2, src/records/record-view.ts):
 * the `{message, data}` envelope (a page with total, page, perPage, lastPage) and each record
 * rendered with its writers joined from `limit_users` (seeded by POST /users) and written as the
 * spec 2.3 record-like objects with their 2.4 user objects (src/http/audit-fields.ts), built in
 * JavaScript for every row of every reply: no cache, as a plain server would. A create answers
 * the record so rendered, an update `{message: 'updated', data: null}`, as the project's do.
 */
import Fastify from 'fastify';
import pg from 'pg';

const SAME = process.env.LIMIT_CONTENT === 'same';
const pool = new pg.Pool({ connectionString: process.env.LIMIT_DATABASE_URL, max: 16 });
await pool.query(`create table if not exists limit_records (id uuid primary key default gen_random_uuid(), data jsonb not null, created_at bigint not null, updated_at bigint not null)`);
// Added (not in the create) so that a database seeded before the same-content mode gains them.
await pool.query(`alter table limit_records add column if not exists created_by uuid, add column if not exists updated_by uuid, add column if not exists revision integer not null default 0`);
await pool.query(`create index if not exists limit_records_data on limit_records using gin (data jsonb_path_ops)`);
await pool.query(`create index if not exists limit_records_created on limit_records (created_at)`);
await pool.query(`create index if not exists limit_records_text on limit_records using gin (to_tsvector('simple', coalesce(data->>'name', '') || ' ' || coalesce(data->>'description', '')))`);
await pool.query(`create table if not exists limit_users (id uuid primary key, email text not null, firstname text not null, lastname text not null, role text, scopes jsonb not null default '[]', created_at bigint not null, updated_at bigint not null, revision integer not null default 0)`);
const doc = `to_tsvector('simple', coalesce(data->>'name', '') || ' ' || coalesce(data->>'description', ''))`;

/** The caller's uuid (the bearer token), or null. */
const caller = (auth: string | undefined) => (auth?.startsWith('Bearer ') ? auth.slice(7) : null);

// --- Same content: the joined columns of a record's writers, and its reply as the project's.
const userCols = (a: string) => `${a}.id as ${a}_id, ${a}.email as ${a}_email, ${a}.firstname as ${a}_firstname, ${a}.lastname as ${a}_lastname, ${a}.role as ${a}_role, ${a}.scopes as ${a}_scopes, ${a}.created_at as ${a}_created_at, ${a}.updated_at as ${a}_updated_at, ${a}.revision as ${a}_revision`;
const joined = (from: string) => `select p.*, ${userCols('c')}, ${userCols('u')} from ${from} left join limit_users c on c.id = p.created_by left join limit_users u on u.id = p.updated_by`;

type Row = Record<string, any>;

/** The record-like object (spec 2.3) of the writer in columns `a_*`, or null. */
function writer(row: Row, a: string) {
  const uuid = row[`${a}_id`];
  if (!uuid) return null;
  const email: string = row[`${a}_email`];
  const firstname: string = row[`${a}_firstname`];
  const lastname: string = row[`${a}_lastname`];
  const name = `${firstname} ${lastname}`.trim();
  const prop = (icon: string, key: string, value: string, label: string) => ({ icon, name: key, value, type: 'string', label });
  return {
    uuid, name, label: name || email,
    createdAt: Number(row[`${a}_created_at`]), updatedAt: Number(row[`${a}_updated_at`]), deletedAt: null,
    createdByUuid: null, updatedByUuid: null, deletedByUuid: null,
    index: row[`${a}_revision`], deleted: false, complete: true,
    properties: [prop('mail', 'email', email, 'E-mail'), prop('user', 'firstname', firstname, 'First name'), prop('user', 'lastname', lastname, 'Last name')],
    objects: {},
    user: {
      uuid, email, firstname, lastname, initials: `${firstname.charAt(0)}${lastname.charAt(0)}`.toUpperCase(),
      scopes: row[`${a}_scopes`], filters: {}, role: row[`${a}_role`], record: null,
    },
  };
}

/** A record as the project answers it (spec 2.2): one object, no relations, teams or linked user. */
function record(row: Row) {
  const name = typeof row.data.name === 'string' ? row.data.name : null;
  return {
    uuid: row.id, name, label: name, object: 'deal', objects: ['deal'],
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), deletedAt: null,
    createdBy: writer(row, 'c'), updatedBy: writer(row, 'u'), deletedBy: null,
    index: row.revision, revision: row.revision,
    properties: row.data, relations: [], teams: [], user: null,
  };
}
const one = (row: Row) => ({ message: 'success', data: record(row) });

const app = Fastify();
app.post<{ Body: { data: object } }>('/records', async (req, reply) => {
  const now = Date.now();
  const insert = 'insert into limit_records (data, created_at, updated_at, created_by, updated_by) values ($1, $2, $2, $3, $3)';
  const by = caller(req.headers.authorization);
  if (!SAME) return reply.code(201).send((await pool.query(`${insert} returning id, data, created_at`, [req.body.data, now, by])).rows[0]);
  const { rows } = await pool.query(`with p as (${insert} returning *) ${joined('p')}`, [req.body.data, now, by]);
  return reply.code(201).send(one(rows[0]));
});
// Seeding (bench:compare's BENCH_SEED_BATCH): one multi-row insert per batch, ids in the order sent.
app.post<{ Body: { data: object[] } }>('/records/batch', async (req, reply) => {
  const now = Date.now();
  const { rows } = await pool.query(
    'insert into limit_records (data, created_at, updated_at, created_by, updated_by) select d, $2, $2, $3, $3 from jsonb_array_elements($1::jsonb) with ordinality as t(d, n) order by n returning id',
    [JSON.stringify(req.body.data), now, caller(req.headers.authorization)],
  );
  return reply.code(201).send({ ids: rows.map((r) => r.id) });
});
// The users a same-content reply joins (bench:compare seeds the project's writer here).
app.post<{ Body: { uuid: string; email: string; firstname: string; lastname: string; role: string | null; scopes: string[]; createdAt: number; updatedAt: number; revision: number } }>('/users', async (req, reply) => {
  const u = req.body;
  await pool.query(
    `insert into limit_users (id, email, firstname, lastname, role, scopes, created_at, updated_at, revision) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (id) do update set email = $2, firstname = $3, lastname = $4, role = $5, scopes = $6, created_at = $7, updated_at = $8, revision = $9`,
    [u.uuid, u.email, u.firstname, u.lastname, u.role, JSON.stringify(u.scopes), u.createdAt, u.updatedAt, u.revision],
  );
  return reply.code(201).send({ ok: true });
});
app.get<{ Params: { id: string } }>('/records/:id', async (req, reply) => {
  if (!SAME) {
    const { rows } = await pool.query('select id, data, created_at, updated_at from limit_records where id = $1', [req.params.id]);
    return rows[0] ?? reply.code(404).send({});
  }
  const { rows } = await pool.query(`${joined('limit_records p')} where p.id = $1`, [req.params.id]);
  return rows[0] ? one(rows[0]) : reply.code(404).send({});
});
app.put<{ Params: { id: string }; Body: { data: object } }>('/records/:id', async (req, reply) => {
  const update = 'update limit_records set data = data || $2, updated_at = $3, updated_by = $4, revision = revision + 1 where id = $1';
  const params = [req.params.id, req.body.data, Date.now(), caller(req.headers.authorization)];
  const { rowCount } = await pool.query(update, params);
  if (!rowCount) return reply.code(404).send({});
  // Same content: the project's update answers no record (`{message: 'updated', data: null}`).
  return SAME ? { message: 'updated', data: null } : { ok: true };
});
// A filtered page: name contains, status equals, sorted by a property, with the total.
app.post<{ Body: { contains?: string; status?: string; sort: string; page: number; limit: number; query?: string } }>('/records/index', async (req) => {
  const b = req.body;
  const where: string[] = [];
  const params: unknown[] = [b.limit, b.page * b.limit];
  if (b.contains) where.push(`lower(data->>'name') like $${params.push(`%${b.contains.toLowerCase()}%`)}`);
  if (b.status) where.push(`data @> $${params.push(JSON.stringify({ status: b.status }))}::jsonb`);
  if (b.query) where.push(`${doc} @@ websearch_to_tsquery('simple', $${params.push(b.query)})`);
  const order = b.query ? `ts_rank(${doc}, websearch_to_tsquery('simple', $${params.length})) desc` : `data->>'${b.sort === 'due' ? 'due' : 'name'}' desc nulls last`;
  const filter = where.length ? `where ${where.join(' and ')}` : '';
  if (!SAME) {
    const { rows } = await pool.query(`select id, data, created_at, updated_at, count(*) over () as total from limit_records ${filter} order by ${order}, id limit $1 offset $2`, params);
    return { total: Number(rows[0]?.total ?? 0), data: rows.map(({ total: _t, ...r }) => r) };
  }
  // The page first, then its writers joined (to 25 rows, not to every match), in the page's order.
  const page = `(select *, row_number() over (order by ${order}, id) as n, count(*) over () as total from limit_records ${filter} order by ${order}, id limit $1 offset $2) p`;
  const { rows } = await pool.query(`${joined(page)} order by p.n`, params);
  const total = Number(rows[0]?.total ?? 0);
  return { message: 'success', data: rows.map(record), total, page: b.page, perPage: b.limit, lastPage: Math.max(0, Math.ceil(total / b.limit) - 1) };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
