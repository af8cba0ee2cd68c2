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

/**
 * Every record of an object in the tenant (archived ones too), with the given columns, in one
 * statement (every column aggregated in the one pass, so the arrays line up), so the rows, the snapshot and the change count agree. Each column comes back as one
 * JSON array (one parse for the column, not one per value). A property's value is its stored JSON
 * (SQL null where the record has none: the caller cannot tell missing from a stored null, and
 * the filter semantics do not either).
 */
export async function objectRows(sql: Sql, tenant: string, objectUuid: string, keys: readonly string[]): Promise<ObjectRows> {
  const params: unknown[] = [tenant, objectUuid];
  const exprs = keys.map((key) => {
    if (key.startsWith('@')) {
      const column = systemColumns[key];
      if (!column) throw new Error(`unknown system column ${key}`);
      return column;
    }
    params.push(key);
    return `r.vals -> $${params.length}::text`;
  });
  const [row] = await sql.query<{ snapshot: string; version: string; uuids: string[] | null } & Record<string, unknown[] | null>>(
    `select pg_current_snapshot()::text as snapshot, ${objectChangesSql('$1', '$2::uuid')} as version,
            json_agg(r.uuid) as uuids${exprs.map((e, i) => `, json_agg(${e}) as c${i}`).join('')}
       from records r where r.tenant = $1 and r.object_uuid = $2::uuid`,
    params,
  );
  const uuids = row?.uuids ?? [];
  return {
    snapshot: row!.snapshot,
    version: row!.version,
    uuids,
    columns: Object.fromEntries(keys.map((k, i) => [k, row?.[`c${i}`] ?? []])),
  };
}
