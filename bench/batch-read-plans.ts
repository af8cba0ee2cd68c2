/**
 * What planning costs the read a record write makes first (records_rows_batch, issue 15):
 * `URL=<a database with records> npx tsx bench/batch-read-plans.ts` (e.g. one `bench/write-cost.ts`
 * kept with COST_KEEP=1). Not a test, not part of `npm run bench`.
 *
 * On one connection, N (3,000) reads of SIZE (1) keys by each form, 3 rounds interleaved: the keys
 * as `unnest` of two array parameters (before session 10: PostgreSQL estimates 10 rows in the
 * generic plan and SIZE in a custom one, so it plans every execution again) and as a VALUES list
 * of the batch's size (read-models/batch-keys.ts: the generic plan is kept). Prints the backend's
 * CPU time per read (/proc: PostgreSQL on this machine) and the plan cache's counts.
 */
import pg from 'pg';
import { processCpuMs } from './proc-cpu.js';
const url = process.env.URL ?? '';
if (!url) throw new Error('URL: a database with records (bench/write-cost.ts with COST_KEEP=1 keeps one)');
const c = new pg.Client({ connectionString: url });
await c.connect();
await c.query('set jit = off');
const pid = (await c.query('select pg_backend_pid() as pid')).rows[0].pid;
const keys = (await c.query('select tenant, uuid from records where is_primary limit 200')).rows;
const cols = `q.tenant as batch_tenant, r.uuid, r.object_uuid, r.primary_object_uuid, r.object_name, r.extends, r.vals, r.created_at, r.updated_at,
  r.created_by, r.updated_by, r.deleted_at, r.deleted_by, r.revision, r.user_uuid,
  array(select o.name from rm_objects o where o.tenant = r.tenant and o.object_uuid = any(r.primary_object_uuid || r.extends) and o.deleted_at is null
         order by o.object_uuid <> r.primary_object_uuid, o.object_uuid) as object_names`;
const N = Number(process.env.N ?? 3000);
const size = Number(process.env.SIZE ?? 1);
const run = async (variant: 'unnest' | 'values') => {
  const t0 = processCpuMs(pid)!;
  const w0 = performance.now();
  for (let i = 0; i < N; i++) {
    const ks = Array.from({ length: size }, (_, j) => keys[(i * size + j) % keys.length]);
    if (variant === 'unnest') await c.query({ name: `u${size}`, text: `select ${cols} from unnest($1::text[], $2::uuid[]) as q(tenant, uuid) join records r on r.tenant = q.tenant and r.uuid = q.uuid and r.is_primary`, values: [ks.map((k) => k.tenant), ks.map((k) => k.uuid)] });
    else await c.query({ name: `v${size}`, text: `select ${cols} from (values ${ks.map((_, j) => `($${2 * j + 1}::text, $${2 * j + 2}::uuid)`).join(', ')}) as q(tenant, uuid) join records r on r.tenant = q.tenant and r.uuid = q.uuid and r.is_primary`, values: ks.flatMap((k) => [k.tenant, k.uuid]) });
  }
  return { cpu: ((processCpuMs(pid)! - t0) * 1000) / N, wall: ((performance.now() - w0) * 1000) / N };
};
for (let r = 0; r < 3; r++) for (const v of ['unnest', 'values'] as const) { const x = await run(v); console.log(`size ${size} ${v}: backend CPU ${x.cpu.toFixed(0)} µs/read, wall ${x.wall.toFixed(0)} µs/read`); }
console.log((await c.query(`select name, generic_plans, custom_plans from pg_prepared_statements order by name`)).rows.map((r) => `${r.name}: ${r.generic_plans} generic, ${r.custom_plans} custom`).join('; '));
await c.end();
