import type { PropertyDefinition } from '../aggregates/property/property.schemas.js';
import type { Sql } from '../ports/sql.js';
import { toDefinition, type PropertyRow } from './properties.queries.js';
import { inKeyOrder, objectChangesSql, type RecordRow, type RecordTeam } from './records.queries.js';
import { isUuid } from '../aggregates/kernel/uuid.js';

/** A connection of the record (spec 2.5), with the record at its other end. */
export interface RecordLinkEntry {
  relation_uuid: string;
  relation_name: string;
  from_name: string;
  to_name: string | null;
  from_record: string;
  to_record: string;
  edge_properties: Record<string, unknown>;
  other_uuid: string;
  other_object: string | null;
  other_vals: Record<string, unknown> | null;
  other_deleted_at: number | null;
}

/** Everything a record's response needs, read in one statement. */
export interface RecordViewRow extends RecordRow {
  object_names: { uuid: string; name: string }[];
  properties: (PropertyRow & { object_uuid: string })[];
  teams: RecordTeam[];
  links: RecordLinkEntry[] | null;
}


const viewSql = (where: string, links: boolean, definitions = true, from = 'records r', teamTenant = '$3::uuid') => `
select r.uuid, r.object_uuid, r.primary_object_uuid, r.object_name, r.extends, r.vals, r.created_at, r.updated_at,
       r.created_by, r.updated_by, r.deleted_at, r.deleted_by, r.revision, r.user_uuid,
       (select coalesce(json_agg(json_build_object('uuid', o.object_uuid, 'name', o.name) order by o.object_uuid <> r.primary_object_uuid, o.name), '[]'::json)
          from rm_objects o where o.tenant = r.tenant and o.object_uuid = any(r.primary_object_uuid || r.extends) and o.deleted_at is null) as object_names,
       ${
         definitions
           ? `(select coalesce(json_agg(p order by p.object_uuid <> r.primary_object_uuid, p.object_uuid, p.created_at, p.name), '[]'::json)
          from rm_properties p where p.tenant = r.tenant and p.object_uuid = any(r.primary_object_uuid || r.extends) and p.deleted_at is null)`
           : `'[]'::json`
       } as properties,
       (select coalesce(json_agg(json_build_object('uuid', t.team_uuid, 'name', t.name) order by t.name, t.team_uuid), '[]'::json)
          from team_records tr join teams t on t.tenant = tr.tenant and t.team_uuid = tr.team_uuid and t.deleted_at is null
         where tr.tenant = ${teamTenant} and tr.record_uuid = r.uuid) as teams,
       ${
         links
           ? `(select coalesce(json_agg(json_build_object(
                 'relation_uuid', l.relation_uuid, 'relation_name', rel.name, 'from_name', rel.from_name, 'to_name', rel.to_name,
                 'from_record', l.from_record, 'to_record', l.to_record, 'edge_properties', l.edge_properties,
                 'other_uuid', x.other, 'other_object', o.object_name, 'other_vals', o.vals, 'other_deleted_at', o.deleted_at)
                 order by rel.idx, rel.name, l.created_at, x.other), '[]'::json)
          from rm_record_links l
          join rm_relations rel on rel.tenant = l.tenant and rel.relation_uuid = l.relation_uuid and rel.deleted_at is null and rel.purged_at is null
          cross join lateral (select case when l.from_record = r.uuid then l.to_record else l.from_record end as other) x
          left join records o on o.tenant = l.tenant and o.uuid = x.other and o.is_primary
         where l.tenant = r.tenant and l.connected and (l.from_record = r.uuid or l.to_record = r.uuid))`
           : 'null::json'
       } as links
  from ${from}
 where ${where}`;

// Several tenants' records in one statement (a batch of gets): each row is found by its own
// (tenant, uuid) pair, so a tenant never sees another's record.
const batchFrom = `unnest($1::text[], $2::uuid[], $3::uuid[]) as q(tenant, uuid, team_tenant)
  join records r on r.tenant = q.tenant and r.uuid = q.uuid and r.is_primary`;
const batchSql = (links: boolean) =>
  viewSql('true', links, false, batchFrom, 'q.team_tenant').replace('select r.uuid,', 'select q.tenant as batch_tenant, r.uuid,');

// With the object's change count ($4, migration 0008) and the snapshot, read with the records.
const versioned = (sql: string) =>
  sql.replace('select r.uuid,', `select ${objectChangesSql('$1', '$4::uuid')} as version, pg_current_snapshot()::text as snapshot, r.uuid,`);

const statements = {
  one: viewSql('r.tenant = $1 and r.uuid = $2 and r.is_primary', true),
  oneNoLinks: viewSql('r.tenant = $1 and r.uuid = $2 and r.is_primary', false),
  many: viewSql('r.tenant = $1 and r.uuid = any($2::uuid[]) and r.is_primary', true, false),
  manyNoLinks: viewSql('r.tenant = $1 and r.uuid = any($2::uuid[]) and r.is_primary', false, false),
  manyVersioned: versioned(viewSql('r.tenant = $1 and r.uuid = any($2::uuid[]) and r.is_primary', true, false)),
  manyNoLinksVersioned: versioned(viewSql('r.tenant = $1 and r.uuid = any($2::uuid[]) and r.is_primary', false, false)),
  ofUser: viewSql('r.tenant = $1 and r.user_uuid = $2 and r.is_primary', false),
  batch: batchSql(true),
  batchNoLinks: batchSql(false),
};

const teamTenant = (tenant: string) => (isUuid(tenant) ? tenant : null);

/**
 * A statement's column of the view rows of `uuids` (an expression of uuid[]) of the tenant `tenantParam`
 * (as `recordViews` reads them: without definitions), as one json array in no order, for a
 * statement that finds a page and answers it at once. `teamTenantParam`: the parameter holding
 * `teamTenantOf(tenant)`. Read back with `viewRowsInOrder`.
 */
export const viewRowsColumn = (uuids: string, tenantParam: string, teamTenantParam: string, links: boolean) =>
  `(select coalesce(json_agg(v), '[]'::json) from (${viewSql(`r.tenant = ${tenantParam} and r.uuid = any(${uuids}) and r.is_primary`, links, false, 'records r', `${teamTenantParam}::uuid`)}) v)`;

/** The team tenant parameter of `viewRowsColumn` (team rows are keyed by company uuid). */
export const teamTenantOf = teamTenant;

/** The rows of `viewRowsColumn` in the order of `uuids` (unknown ones left out), as `recordViews` answers. */
export function viewRowsInOrder(rows: readonly RecordViewRow[], uuids: readonly string[]): RecordViewRow[] {
  const byUuid = new Map(rows.map((r) => [r.uuid, r]));
  return uuids.flatMap((u) => byUuid.get(u) ?? []);
}

/** One record of the tenant with what its response shows; null when there is none. */
export async function recordView(sql: Sql, tenant: string, uuid: string, opts: { links?: boolean } = {}): Promise<RecordViewRow | null> {
  const links = opts.links ?? true;
  const [row] = await sql.query<RecordViewRow>(links ? statements.one : statements.oneNoLinks, [tenant, uuid, teamTenant(tenant)], links ? 'records_view' : 'records_view_nolinks');
  return row ?? null;
}

/** The User-trait record linked to `userUuid` in the tenant (one at most: `records_user_link`), without links; null when none. */
export async function userRecordView(sql: Sql, tenant: string, userUuid: string): Promise<RecordViewRow | null> {
  const [row] = await sql.query<RecordViewRow>(statements.ofUser, [tenant, userUuid, teamTenant(tenant)], 'records_view_of_user');
  return row ?? null;
}

/**
 * Several records of the tenant, in the order of `uuids` (unknown ones left out). Without their
 * property definitions (`properties` is empty): a page shares them, the caller has them.
 */
export async function recordViews(sql: Sql, tenant: string, uuids: readonly string[], opts: { links?: boolean } = {}): Promise<RecordViewRow[]> {
  if (uuids.length === 0) return [];
  const links = opts.links ?? true;
  const rows = await sql.query<RecordViewRow>(links ? statements.many : statements.manyNoLinks, [tenant, uuids, teamTenant(tenant)], links ? 'records_views' : 'records_views_nolinks');
  return viewRowsInOrder(rows, uuids);
}

/**
 * Several records of the tenant, as `recordViews`, with the change count of `objectUuid` and the
 * snapshot read in the same statement (undefined when no record was found): what a kept index
 * result is checked by.
 */
export async function recordViewsAt(
  sql: Sql, tenant: string, objectUuid: string, uuids: readonly string[], opts: { links: boolean },
): Promise<{ rows: RecordViewRow[]; version?: string; snapshot?: string }> {
  if (uuids.length === 0) return { rows: [] };
  const rows = await sql.query<RecordViewRow & { version: string; snapshot: string }>(
    opts.links ? statements.manyVersioned : statements.manyNoLinksVersioned,
    [tenant, uuids, teamTenant(tenant), objectUuid],
    opts.links ? 'records_views_versioned' : 'records_views_nolinks_versioned',
  );
  const byUuid = new Map(rows.map(({ version: _, snapshot: __, ...r }) => [r.uuid, r as RecordViewRow]));
  return { rows: uuids.flatMap((u) => byUuid.get(u) ?? []), version: rows[0]?.version, snapshot: rows[0]?.snapshot };
}

/**
 * Records of several tenants at once, by (tenant, uuid): the answer for each key in order, null
 * where the tenant has no such record. Without property definitions (`properties` is empty): the
 * caller takes them from its objects.
 */
export async function recordViewsBatch(sql: Sql, keys: readonly { tenant: string; uuid: string }[], opts: { links: boolean }): Promise<(RecordViewRow | null)[]> {
  if (keys.length === 0) return [];
  const rows = await sql.query<RecordViewRow & { batch_tenant: string }>(
    opts.links ? statements.batch : statements.batchNoLinks,
    [keys.map((k) => k.tenant), keys.map((k) => k.uuid), keys.map((k) => teamTenant(k.tenant))],
    opts.links ? 'records_views_batch' : 'records_views_batch_nolinks',
  );
  return inKeyOrder<RecordViewRow>(rows, keys);
}

/** The definitions of a view row's live properties (the primary object's first). */
export const viewDefinitions = (row: RecordViewRow): (PropertyDefinition & { uuid: string; objectUuid: string })[] => {
  const seen = new Set<string>();
  return row.properties.flatMap((p) => (seen.has(p.name) ? [] : (seen.add(p.name), [{ uuid: p.property_uuid, objectUuid: p.object_uuid, ...toDefinition(p) }])));
};
