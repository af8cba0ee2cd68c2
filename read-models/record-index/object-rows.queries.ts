import type { Sql } from '../../ports/sql.js';
import { objectChangesSql } from '../records.queries.js';

/** An object's records, column by column, as one statement saw them. */
export interface ObjectRows {
  /** The statement's snapshot and the object's change count then (what later changes are read from). */
  snapshot: string;
  version: string;
  uuids: string[];
  /** By column key (`@createdAt`, a property name, ...): each record's value, in the order of `uuids` (null where it has none). */
  columns: Record<string, unknown[]>;
}

const systemColumns: Record<string, string> = {
  '@createdAt': 'r.created_at',
  '@updatedAt': 'r.updated_at',
  '@createdBy': 'r.created_by',
  '@updatedBy': 'r.updated_by',
  '@deletedAt': 'r.deleted_at',
  // The search vector's text form (scoped lexemes and positions: ADR 0016), parsed by the caller.
  '@search': 'r.search::text',
};

/** Where a read of an object's records in pages goes on from: the last record read, by (createdAt, uuid). */
export type RowsAfter = readonly [createdAt: string, uuid: string];

/**
 * A page of the records of an object in the tenant (archived ones too), at most `limit` of them
 * after `after` in (createdAt, uuid) order (the `records_created` index), with the given columns,
 * in one statement (every column aggregated in the one pass, so the arrays line up). Each column
 * comes back as one JSON array (one parse for the column, not one per value). A property's value
 * is its stored JSON (SQL null where the record has none: the caller cannot tell missing from a
 * stored null, and the filter semantics do not either). The snapshot and the change count are
 * the statement's: a reader of several pages keeps the first page's, and brings what it read up
 * to date from there (a page read later may see later writes; the changes since the first
 * snapshot put every record as it is now).
 */
export async function objectRows(sql: Sql, tenant: string, objectUuid: string, keys: readonly string[], page: { after?: RowsAfter; limit: number }): Promise<ObjectRows & { last?: RowsAfter }> {
  const params: unknown[] = [tenant, objectUuid, page.limit];
  const exprs = keys.map((key) => {
    if (key.startsWith('@')) {
      const column = systemColumns[key];
      if (!column) throw new Error(`unknown system column ${key}`);
      return column;
    }
    params.push(key);
    return `r.vals -> $${params.length}::text`;
  });
  let after = '';
  if (page.after) {
    params.push(page.after[0], page.after[1]);
    after = `and (r.created_at, r.uuid) > ($${params.length - 1}::int8, $${params.length}::uuid)`;
  }
  const order = 'order by r.created_at, r.uuid';
  const [row] = await sql.query<{ snapshot: string; version: string; uuids: string[] | null; last: [string, string] | null } & Record<string, unknown[] | null>>(
    `with r as (select * from records r where r.tenant = $1 and r.object_uuid = $2::uuid ${after} ${order} limit $3::int)
     select pg_current_snapshot()::text as snapshot, ${objectChangesSql('$1', '$2::uuid')} as version,
            json_agg(r.uuid ${order}) as uuids${exprs.map((e, i) => `, json_agg(${e} ${order}) as c${i}`).join('')},
            (select array[r.created_at::text, r.uuid::text] from r order by r.created_at desc, r.uuid desc limit 1) as last
       from r`,
    params,
  );
  const uuids = row?.uuids ?? [];
  return {
    snapshot: row!.snapshot,
    version: row!.version,
    uuids,
    columns: Object.fromEntries(keys.map((k, i) => [k, row?.[`c${i}`] ?? []])),
    ...(row?.last ? { last: [row.last[0], row.last[1]] as const } : {}),
  };
}
