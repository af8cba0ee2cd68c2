import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import type { Sql } from '../../ports/sql.js';

/**
 * The pivot keys (`record_fields.fid`) of an index request's own properties, known before its SQL
 * is built, so that they are literals in it: the planner then estimates `v.fid = 3 and v.t = $x`
 * from the statistics of that key (a key computed by an init plan is a value
 * it cannot see, and its default guess drove nested loops over tens of thousands of candidates).
 *
 * A key, once made, never changes while the read model lives; a rebuild (servers stopped) makes
 * new ones. The statement checks the keys it was built with (`keysCheck`) and the request is run
 * again with fresh keys when they differ, so a stale entry costs a retry, never a wrong answer.
 */
const known = new Map<string, number>();
const MAX = 50_000;

const cacheKey = (tenant: string, objectUuid: string, name: string) => `${tenant}\u0000${objectUuid}\u0000${name}`;

/** The names of the request's own properties (not through a relation) that a condition or sort key reads. */
export function requestPropertyNames(req: CompiledIndexRequest): string[] {
  const names = new Set<string>();
  for (const c of [...req.filter.all, ...req.filter.anyOf.flat()]) if (!c.field.system && !c.field.relation) names.add(c.field.name);
  for (const s of req.sort) if (!s.field.system && !s.field.relation) names.add(s.field.name);
  return [...names].sort();
}

export async function fieldKeys(sql: Sql, tenant: string, objectUuid: string, names: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const missing: string[] = [];
  for (const n of names) {
    const fid = known.get(cacheKey(tenant, objectUuid, n));
    if (fid === undefined) missing.push(n);
    else out.set(n, fid);
  }
  if (missing.length > 0) {
    const rows = await sql.query<{ name: string; fid: number }>(
      'select name, fid from record_fields where tenant = $1 and object_uuid = $2::uuid and name = any($3::text[])',
      [tenant, objectUuid, missing],
      'record_index_field_keys',
    );
    if (known.size > MAX) known.clear();
    for (const r of rows) {
      known.set(cacheKey(tenant, objectUuid, r.name), Number(r.fid));
      out.set(r.name, Number(r.fid));
    }
  }
  return out;
}

/** Forgets the object's keys (after a statement found them stale). */
export function forgetFieldKeys(tenant: string, objectUuid: string) {
  const prefix = `${tenant}\u0000${objectUuid}\u0000`;
  for (const k of known.keys()) if (k.startsWith(prefix)) known.delete(k);
}

/** SQL that is true when `keys` are still the object's keys ($1 tenant, $2 object). */
export function keysCheck(keys: ReadonlyMap<string, number>): string {
  if (keys.size === 0) return 'true';
  const pairs = [...keys].map(([name, fid]) => `('${name.replace(/'/g, "''")}', ${Math.trunc(fid)})`).join(', ');
  return `((select count(*) from record_fields f where f.tenant = $1 and f.object_uuid = $2::uuid and (f.name, f.fid) in (${pairs})) = ${keys.size})`;
}
