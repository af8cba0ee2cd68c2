import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import type { Sql } from '../../projections/projection.js';
import { objectRecordCount } from '../records.queries.js';
import { archivedClause, SqlBuilder, type RelationPath } from './record-index.sql.js';

/** Which records an index request reads: one object of one tenant, and how its relations are walked. */
export interface IndexTarget {
  tenant: string;
  objectUuid: string;
  relations?: Readonly<Record<string, RelationPath>>;
}

export interface IndexResult {
  total: number;
  /** The page, in order. */
  uuids: string[];
}

const isPlain = (req: CompiledIndexRequest) => req.filter.all.length === 0 && req.filter.anyOf.length === 0 && !req.query;

/**
 * Runs an index request against the read model: the page of record uuids in order, and the total.
 * The filter / sort / page semantics are those of `evaluateIndex` (aggregates/record-filter).
 */
export async function indexRecords(sql: Sql, target: IndexTarget, req: CompiledIndexRequest): Promise<IndexResult> {
  const b = new SqlBuilder([target.tenant, target.objectUuid], target.relations);
  const where = ['r.tenant = $1', 'r.object_uuid = $2::uuid', archivedClause('r', req.archived), ...b.filter('r', req.filter, '$2')];
  let rank = '';
  if (req.query) {
    const q = b.arg(req.query);
    where.push(`r.search @@ websearch_to_tsquery('simple', ${q})`);
    if (req.sort.length === 0) rank = `ts_rank(r.search, websearch_to_tsquery('simple', ${q})) desc, `;
  }
  const cond = where.join(' and ');
  const countParams = [...b.params];
  const order = `${rank}${b.orderBy('r', req.sort)}`;
  const limit = b.arg(req.limit, '::int');
  const offset = b.arg((req.page - 1) * req.limit, '::int');
  const pageSql = `select r.uuid from records r where ${cond} order by ${order} limit ${limit} offset ${offset}`;
  // Not prepared: a generic plan cannot see the pattern or the value a trigram / jsonb index needs.
  const rows = await sql.query<{ uuid: string }>(pageSql, b.params);
  let total: number;
  if (isPlain(req) && req.archived !== 'include') {
    const counts = await objectRecordCount(sql, target.tenant, target.objectUuid);
    total = req.archived === 'only' ? counts.archived : counts.live;
  } else if (req.page === 1 && rows.length < req.limit) {
    total = rows.length;
  } else {
    const countSql = `select count(*)::int8 as n from records r where ${cond}`;
    const [row] = await sql.query<{ n: number }>(countSql, countParams);
    total = Number(row?.n ?? 0);
  }
  return { total, uuids: rows.map((r) => r.uuid) };
}
