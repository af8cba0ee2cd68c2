import type { PropertyDefinition } from '../aggregates/property/property.schemas.js';
import type { Sql } from '../ports/sql.js';
import { toDefinition, type PropertyRow } from './properties.queries.js';
import { isUuid } from '../aggregates/kernel/uuid.js';
import { batchKeys, tenantAndUuid } from './batch-keys.js';

/** An object as records need it: identity and live properties, loaded in one statement. */
export interface RecordObject {
  objectUuid: string;
  name: string;
  label: string;
  properties: (PropertyDefinition & { uuid: string })[];
  /** The User trait, when the object holds it: its records are user profiles (spec 1.6). */
  userTrait: { emailProperty: string | null } | null;
}

const objectSql = (where: string) => `
select o.object_uuid, o.name, o.label,
       coalesce((select json_agg(p order by p.created_at, p.name) from rm_properties p
                  where p.tenant = o.tenant and p.object_uuid = o.object_uuid and p.deleted_at is null), '[]'::json) as properties,
       (select json_build_object('emailProperty', t.config ->> 'emailProperty') from rm_traits t
         where t.tenant = o.tenant and t.object_uuid = o.object_uuid and t.trait = 'User' and t.removed_at is null) as user_trait
  from rm_objects o
 where o.tenant = $1 and ${where} and o.deleted_at is null`;

interface ObjectRowWithProperties {
  object_uuid: string;
  name: string;
  label: string;
  properties: PropertyRow[];
  user_trait: { emailProperty: string | null } | null;
}

const toRecordObject = (row: ObjectRowWithProperties): RecordObject => ({
  objectUuid: row.object_uuid,
  name: row.name,
  label: row.label,
  properties: row.properties.map((p) => ({ uuid: p.property_uuid, ...toDefinition(p) })),
  userTrait: row.user_trait,
});

/** The tenant's live object `name` with its live properties; null when there is none. */
export async function loadRecordObject(sql: Sql, tenant: string, name: string): Promise<RecordObject | null> {
  const [row] = await sql.query<ObjectRowWithProperties>(objectSql('o.name = $2'), [tenant, name], 'records_object_by_name');
  return row ? toRecordObject(row) : null;
}

/** The tenant's live objects among `uuids`, with their live properties (missing ones are left out). */
export async function loadRecordObjects(sql: Sql, tenant: string, uuids: readonly string[]): Promise<RecordObject[]> {
  if (uuids.length === 0) return [];
  const rows = await sql.query<ObjectRowWithProperties>(objectSql('o.object_uuid = any($2::uuid[])'), [tenant, uuids], 'records_objects_by_uuid');
  return rows.map(toRecordObject);
}

/** One record as the read model holds it, in one object context. */
export interface RecordRow {
  uuid: string;
  object_uuid: string;
  primary_object_uuid: string;
  object_name: string;
  extends: string[];
  vals: Record<string, unknown>;
  created_at: number;
  updated_at: number;
  created_by: string | null;
  updated_by: string | null;
  deleted_at: number | null;
  deleted_by: string | null;
  revision: number;
  /** User trait: the platform user the record is the profile of. */
  user_uuid: string | null;
}

export const recordColumns = `r.uuid, r.object_uuid, r.primary_object_uuid, r.object_name, r.extends, r.vals, r.created_at, r.updated_at,
  r.created_by, r.updated_by, r.deleted_at, r.deleted_by, r.revision, r.user_uuid`;

/** The record `uuid` of the tenant (its primary object's row), archived or not; null when there is none. */
export async function getRecord(sql: Sql, tenant: string, uuid: string): Promise<RecordRow | null> {
  const [row] = await sql.query<RecordRow>(`select ${recordColumns} from records r where r.tenant = $1 and r.uuid = $2 and r.is_primary`, [tenant, uuid], 'records_get');
  return row ?? null;
}

/** Rows of a batch read (each with the tenant its key asked for) in the order of the keys; null where a key found nothing. */
export function inKeyOrder<R extends { uuid: string }>(rows: readonly (R & { batch_tenant: string })[], keys: readonly { tenant: string; uuid: string }[]): (R | null)[] {
  const found = new Map(rows.map(({ batch_tenant, ...row }) => [`${batch_tenant}\u0000${row.uuid}`, row as unknown as R]));
  return keys.map((k) => found.get(`${k.tenant}\u0000${k.uuid.toLowerCase()}`) ?? null);
}

/**
 * The object's change count as text, a scalar subquery (migration 0008): how many record-row
 * changes it has seen. Two reads that see the same count see the same records of the object.
 */
export const objectChangesSql = (tenant: string, objectUuid: string) =>
  `(select coalesce(sum(changes), 0) from record_counts where tenant = ${tenant} and object_uuid = ${objectUuid})::text`;

/**
 * Records of several tenants at once by (tenant, uuid) (a batch of writes reading their record):
 * each key's primary row with the names of its live objects (primary first, then by uuid), or
 * null where the tenant has no such record.
 */
export async function recordRowsBatch(sql: Sql, keys: readonly { tenant: string; uuid: string }[]): Promise<((RecordRow & { object_names: string[] }) | null)[]> {
  if (keys.length === 0) return [];
  // A statement per batch size: its generic plan is kept (read-models/batch-keys.ts).
  const q = batchKeys(keys, 'records_rows_batch', tenantAndUuid);
  const rows = await sql.query<RecordRow & { object_names: string[]; batch_tenant: string }>(
    `select q.tenant as batch_tenant, ${recordColumns},
            array(select o.name from rm_objects o where o.tenant = r.tenant and o.object_uuid = any(r.primary_object_uuid || r.extends) and o.deleted_at is null
                   order by o.object_uuid <> r.primary_object_uuid, o.object_uuid) as object_names
       from ${q.from} join records r on r.tenant = q.tenant and r.uuid = q.uuid and r.is_primary`,
    q.params,
    q.name,
  );
  return inKeyOrder(rows, keys);
}

/** Whether the tenant has the record (archived or not). */
export async function recordExists(sql: Sql, tenant: string, uuid: string): Promise<boolean> {
  return (await getRecord(sql, tenant, uuid)) !== null;
}

/** Records of the tenant by uuid (primary rows), in no particular order; unknown uuids are left out. */
export async function getRecords(sql: Sql, tenant: string, uuids: readonly string[]): Promise<RecordRow[]> {
  if (uuids.length === 0) return [];
  return sql.query<RecordRow>(`select ${recordColumns} from records r where r.tenant = $1 and r.uuid = any($2::uuid[]) and r.is_primary`, [tenant, uuids], 'records_get_many');
}

export interface RecordTeam {
  uuid: string;
  name: string;
}

/** The live teams assigned to each record (identity's team_records), by record uuid. */
export async function teamsOfRecords(sql: Sql, tenant: string, uuids: readonly string[]): Promise<Map<string, RecordTeam[]>> {
  const out = new Map<string, RecordTeam[]>();
  if (uuids.length === 0 || !isUuid(tenant)) return out;
  const rows = await sql.query<{ record_uuid: string; team_uuid: string; name: string }>(
    `select tr.record_uuid, t.team_uuid, t.name from team_records tr
       join teams t on t.tenant = tr.tenant and t.team_uuid = tr.team_uuid and t.deleted_at is null
      where tr.tenant = $1::uuid and tr.record_uuid = any($2::uuid[]) order by t.name, t.team_uuid`,
    [tenant, uuids],
    'records_teams',
  );
  for (const r of rows) out.set(r.record_uuid, [...(out.get(r.record_uuid) ?? []), { uuid: r.team_uuid, name: r.name }]);
  return out;
}

/** Live records of an object (from the sharded counters): the total of an unfiltered list. */
export async function objectRecordCount(sql: Sql, tenant: string, objectUuid: string): Promise<{ live: number; archived: number }> {
  const [row] = await sql.query<{ live: number; archived: number }>(
    'select coalesce(sum(live), 0)::int8 as live, coalesce(sum(archived), 0)::int8 as archived from record_counts where tenant = $1 and object_uuid = $2',
    [tenant, objectUuid],
    'records_count_object',
  );
  return { live: Number(row?.live ?? 0), archived: Number(row?.archived ?? 0) };
}

