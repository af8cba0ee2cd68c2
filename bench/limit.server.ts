/**
 * The limit server of `npm run bench:compare`: Fastify and pg over one JSONB table, no history, no
 * validation, no tenants. What a plain JSONB design gives on the same PostgreSQL. LIMIT_DATABASE_URL, PORT.
 */
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.LIMIT_DATABASE_URL, max: 16 });
await pool.query(`create table if not exists limit_records (id uuid primary key default gen_random_uuid(), data jsonb not null, created_at bigint not null, updated_at bigint not null)`);
await pool.query(`create index if not exists limit_records_data on limit_records using gin (data jsonb_path_ops)`);
await pool.query(`create index if not exists limit_records_created on limit_records (created_at)`);
await pool.query(`create index if not exists limit_records_text on limit_records using gin (to_tsvector('simple', coalesce(data->>'name', '') || ' ' || coalesce(data->>'description', '')))`);
const doc = `to_tsvector('simple', coalesce(data->>'name', '') || ' ' || coalesce(data->>'description', ''))`;

const app = Fastify();
app.post<{ Body: { data: object } }>('/records', async (req, reply) => {
  const now = Date.now();
  const { rows } = await pool.query('insert into limit_records (data, created_at, updated_at) values ($1, $2, $2) returning id, data, created_at', [req.body.data, now]);
  return reply.code(201).send(rows[0]);
});
// Seeding (bench:compare's BENCH_SEED_BATCH): one multi-row insert per batch, ids in the order sent.
app.post<{ Body: { data: object[] } }>('/records/batch', async (req, reply) => {
  const now = Date.now();
  const { rows } = await pool.query(
    'insert into limit_records (data, created_at, updated_at) select d, $2, $2 from jsonb_array_elements($1::jsonb) with ordinality as t(d, n) order by n returning id',
    [JSON.stringify(req.body.data), now],
  );
  return reply.code(201).send({ ids: rows.map((r) => r.id) });
});
app.get<{ Params: { id: string } }>('/records/:id', async (req, reply) => {
  const { rows } = await pool.query('select id, data, created_at, updated_at from limit_records where id = $1', [req.params.id]);
  return rows[0] ?? reply.code(404).send({});
});
app.put<{ Params: { id: string }; Body: { data: object } }>('/records/:id', async (req, reply) => {
  const { rowCount } = await pool.query('update limit_records set data = data || $2, updated_at = $3 where id = $1', [req.params.id, req.body.data, Date.now()]);
  return rowCount ? { ok: true } : reply.code(404).send({});
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
  const { rows } = await pool.query(
    `select id, data, created_at, updated_at, count(*) over () as total from limit_records ${where.length ? `where ${where.join(' and ')}` : ''} order by ${order}, id limit $1 offset $2`,
    params,
  );
  return { total: Number(rows[0]?.total ?? 0), data: rows.map(({ total: _t, ...r }) => r) };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
