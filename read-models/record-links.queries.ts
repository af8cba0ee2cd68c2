import type { Sql } from '../ports/sql.js';

export interface RecordLinkRow {
  relation_uuid: string;
  from_record: string;
  to_record: string;
  edge_properties: Record<string, unknown>;
  connected: boolean;
  created_at: number;
  updated_at: number;
  revision: number;
}

const columns = 'relation_uuid, from_record, to_record, edge_properties, connected, created_at, updated_at, revision';

/** The connection of two records through a relation, if they are connected. */
export async function linkOf(sql: Sql, tenant: string, relationUuid: string, fromRecord: string, toRecord: string): Promise<RecordLinkRow | null> {
  const [row] = await sql.query<RecordLinkRow>(
    `select ${columns} from rm_record_links where tenant = $1 and relation_uuid = $2 and from_record = $3 and to_record = $4 and connected`,
    [tenant, relationUuid, fromRecord, toRecord],
  );
  return row ?? null;
}

/**
 * Connections that a new one from `fromRecord` to `toRecord` would break the cardinality with:
 * another target of `fromRecord` when `onePerFrom`, another origin of `toRecord` when `onePerTo`.
 */
export async function cardinalityClashes(
  sql: Sql,
  tenant: string,
  relationUuid: string,
  fromRecord: string,
  toRecord: string,
  limits: { onePerFrom: boolean; onePerTo: boolean },
): Promise<RecordLinkRow[]> {
  return sql.query<RecordLinkRow>(
    `select ${columns} from rm_record_links
      where tenant = $1 and relation_uuid = $2 and connected
        and (($5 and from_record = $3 and to_record <> $4) or ($6 and to_record = $4 and from_record <> $3))`,
    [tenant, relationUuid, fromRecord, toRecord, limits.onePerFrom, limits.onePerTo],
  );
}

export interface RecordLinkView extends RecordLinkRow {
  relation_name: string;
  from_object_uuid: string;
  to_object_uuid: string;
  from_name: string;
  to_name: string | null;
}

/**
 * The live connections of records (as origin or target) through live relations: what a record's
 * `relations` (spec 2.5) are built from. A connection of a soft-deleted relation is hidden and comes
 * back with the relation.
 */
export async function linksOfRecords(sql: Sql, tenant: string, recordUuids: readonly string[]): Promise<RecordLinkView[]> {
  return sql.query<RecordLinkView>(
    `select l.relation_uuid, l.from_record, l.to_record, l.edge_properties, l.connected, l.created_at, l.updated_at, l.revision,
            r.name as relation_name, r.from_object_uuid, r.to_object_uuid, r.from_name, r.to_name
       from rm_record_links l join rm_relations r on r.tenant = l.tenant and r.relation_uuid = l.relation_uuid
      where l.tenant = $1 and l.connected and r.deleted_at is null and r.purged_at is null
        and (l.from_record = any($2::uuid[]) or l.to_record = any($2::uuid[]))
      order by r.idx, r.name, l.created_at`,
    [tenant, recordUuids],
  );
}
