import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import type { Sql } from '../../ports/sql.js';
import { objectChangesSql, objectRecordCount } from '../records.queries.js';
import { effectiveSort } from '../../aggregates/record-filter/filter.evaluate.js';
import { RANK, setSort } from './match-set.js';
import { archivedClause, direction, sqlBuilder, textQuery, type RelationPath } from './record-index.sql.js';
import { pageOffset } from '../../aggregates/kernel/paging.js';
import { fieldKeys, forgetFieldKeys, keysCheck, requestPropertyNames } from './field-keys.js';
import { teamTenantOf, viewRowsColumn, viewRowsInOrder, type RecordViewRow } from '../record-views.queries.js';

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
  /** The object's change count the result was read at (filtered requests; see `objectChanges`). */
  version?: string;
  /** The statement's snapshot (`pg_current_snapshot()`): what the matches are as of (filtered requests). */
  snapshot?: string;
  /**
   * Every match in order, each as the raw values of `effectiveSort`'s fields (a property's stored
   * value, a system column), when asked for with `members` and the total is at most that.
   */
  members?: unknown[][];
  /**
   * The page's records, in order, when asked for with `views` (a filtered or free-text request:
   * read by the statement that finds the page; an unfiltered page leaves them to `recordViews`).
   */
  rows?: RecordViewRow[];
}

/**
 * How many record-row changes the object has seen (migration 0008): two reads that see the same
 * number see the same records of the object, so a result read at one number holds at the other.
 */
export async function objectChanges(sql: Sql, tenant: string, objectUuid: string): Promise<{ version: string; snapshot: string }> {
  const [row] = await sql.query<{ version: string; snapshot: string }>(
    `select ${objectChangesSql('$1', '$2')} as version, pg_current_snapshot()::text as snapshot`,
    [tenant, objectUuid],
    'records_object_changes',
  );
  return row!;
}

export interface IndexOptions {
  /** Every match's sort values too (`members`), when there are at most this many. */
  members?: number;
  /** The page's view rows too (`rows`), with or without their links: one statement instead of two. */
  views?: { links: boolean };
}

const isPlain = (req: CompiledIndexRequest) => req.filter.all.length === 0 && req.filter.anyOf.length === 0 && !req.query;

/**
 * Runs an index request against the read model: the page of record uuids in order, and the total.
 * The filter / sort / page semantics are those of `evaluateIndex` (aggregates/record-filter).
 *
 * - Filtered (or free-text) requests read their matches once: the indexes of the filters find
 *   the candidates (trigram, scoped jsonb, tsvector, pivot), the matches are counted and ordered
 *   in one statement.
 * - Unfiltered requests never read the whole object: the total comes from the sharded counters
 *   and the page from an index in sort order (createdAt, or the ordered pivot of the sort property).
 */
export async function indexRecords(sql: Sql, target: IndexTarget, req: CompiledIndexRequest, opts: IndexOptions = {}): Promise<IndexResult> {
  if (isPlain(req)) return plainPage(sql, target, req);
  const names = requestPropertyNames(req);
  const keys = await fieldKeys(sql, target.tenant, target.objectUuid, names);
  const result = await filteredPage(sql, target, req, opts, keys);
  if (result) return result;
  // A key was stale (a rebuild made new ones): read them again.
  forgetFieldKeys(target.tenant, target.objectUuid);
  return (await filteredPage(sql, target, req, opts, await fieldKeys(sql, target.tenant, target.objectUuid, names)))!;
}

async function filteredPage(sql: Sql, target: IndexTarget, req: CompiledIndexRequest, opts: IndexOptions, fids: ReadonlyMap<string, number>): Promise<IndexResult | null> {
  const b = sqlBuilder([target.tenant, target.objectUuid], target.relations, fids);
  const where = ['r.tenant = $1', 'r.object_uuid = $2::uuid', archivedClause('r', req.archived), ...b.filter('r', req.filter, '$2')];
  const keys = effectiveSort(req.sort).map((s) => ({ expr: b.sortExpression('r', s.field), direction: direction(s) }));
  // Free text alone, in rank order: a prepared statement (its text is one of a few), which reads
  // the page's records too when asked. The query is an init plan, computed once per execution: a
  // generic plan does not fold it, and ts_rank would compute it again for every match.
  const prepared = textOnly(req, target);
  let rank = 'null';
  if (req.query) {
    const q = b.arg(req.query);
    const terms = prepared ? `(select ${textQuery('$2', q)})` : textQuery('$2', q);
    where.push(`r.search @@ ${terms}`);
    rank = `ts_rank(r.search, ${terms})`;
    if (req.sort.length === 0) keys.unshift({ expr: rank, direction: 'desc nulls last' });
  }
  const limit = b.arg(req.limit, '::int');
  const offset = b.arg(pageOffset(req.page, req.limit), '::int');
  const order = keys.map((k, i) => `m.k${i} ${k.direction}`).join(', ');
  // The raw values of the sort fields (and the rank), for a match set.
  const raw = opts.members ? effectiveSort(setSort(req)).map((s) => (s.field === RANK ? rank : b.rawExpression('r', s.field))) : [];
  const members = raw.length > 0 ? b.arg(opts.members, '::int') : null;
  const views = opts.views && prepared ? viewRowsColumn('h.uuids', '$1', b.arg(teamTenantOf(target.tenant)), opts.views.links) : null;
  // Not prepared but for free text alone: a generic plan cannot see the pattern or the value a
  // trigram / jsonb index needs. The object's change count and the snapshot, as of the matches:
  // what the result cache keys by. With `views` (prepared only: planned once, not per request),
  // the page's records are read by this statement too: one round trip instead of two.
  const text = `with m as materialized (select r.uuid, ${keys.map((k, i) => `${k.expr} as k${i}`).join(', ')}${raw.map((c, i) => `, ${c} as s${i}`).join('')}
                               from records r where ${where.join(' and ')}),
          h as materialized (select (select count(*) from m)::int8 as total,
                        array(select m.uuid from m order by ${order} limit ${limit} offset ${offset}) as uuids,
                        ${objectChangesSql('$1', '$2::uuid')} as version,
                        pg_current_snapshot()::text as snapshot,
                        ${keysCheck(fids)} as keys_ok,
                        ${members ? `case when (select count(*) from m) <= ${members} then (select coalesce(json_agg(json_build_array(${raw.map((_, i) => `m.s${i}`).join(', ')}) order by ${order}), '[]') from m) end` : 'null'} as members)
     select h.total, h.uuids::text[] as uuids, h.version, h.snapshot, h.keys_ok, h.members${views ? `, ${views} as rows` : ''} from h`;
  const [row] = await sql.query<{ total: number; uuids: string[]; version: string; snapshot: string; members: unknown[][] | null; keys_ok: boolean; rows?: RecordViewRow[] }>(
    text, b.params, prepared ? statementName(text) : undefined,
  );
  if (row && !row.keys_ok) return null;
  const uuids = row?.uuids ?? [];
  return {
    total: Number(row?.total ?? 0), uuids, version: row?.version ?? '0', snapshot: row?.snapshot, members: row?.members ?? undefined,
    ...(views ? { rows: viewRowsInOrder(row?.rows ?? [], uuids) } : {}),
  };
}

/** Free text with no filter, no relation and no sort (rank order): the statement's text is one of a dozen. */
const textOnly = (req: CompiledIndexRequest, target: IndexTarget) =>
  Boolean(req.query) && req.filter.all.length === 0 && req.filter.anyOf.length === 0 && req.sort.length === 0 && Object.keys(target.relations ?? {}).length === 0;

/** A prepared statement's name, by its text (a connection keeps each one it was asked for). */
const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) names.set(text, (name = `records_text_${names.size}`));
  return name;
}


async function totalOf(sql: Sql, target: IndexTarget, archived: CompiledIndexRequest['archived']) {
  const counts = await objectRecordCount(sql, target.tenant, target.objectUuid);
  return archived === 'only' ? counts.archived : archived === 'include' ? counts.live + counts.archived : counts.live;
}

/** An unfiltered page: in createdAt order from its index, or by a property through the ordered pivot. */
async function plainPage(sql: Sql, target: IndexTarget, req: CompiledIndexRequest): Promise<IndexResult> {
  const b = sqlBuilder([target.tenant, target.objectUuid]);
  const scope = `r.tenant = $1 and r.object_uuid = $2::uuid and ${archivedClause('r', req.archived)}`;
  const sort = effectiveSort(req.sort);
  const first = sort[0]!;
  const order = (keys: typeof sort) => keys.map((s) => `${b.sortExpression('r', s.field)} ${direction(s)}`).join(', ');
  const offset = pageOffset(req.page, req.limit);
  const total = totalOf(sql, target, req.archived);
  if (first.field.system || sort.length > 8) {
    const rows = await sql.query<{ uuid: string }>(`select r.uuid from records r where ${scope} order by ${order(sort)} limit $3 offset $4`, [...b.params, req.limit, offset]);
    return { total: await total, uuids: rows.map((r) => r.uuid) };
  }
  // Records with a value of the first key, walked in the pivot's order (text keeps 200
  // characters there: ties continue on the full value), then the records without one.
  const column = first.field.type === 'number' || first.field.type === 'boolean' ? 'n' : 't';
  const fid = `(select fid from record_fields where tenant = $1 and object_uuid = $2::uuid and name = $3)`;
  const withValue = await sql.query<{ uuid: string }>(
    `select r.uuid from record_values s join records r on r.rid = s.rid
      where s.fid = ${fid} and s.${column} is not null and ${scope} and ${b.sortExpression('r', first.field)} is not null
      order by s.${column} ${first.direction}, ${order(sort)} limit $4 offset $5`,
    [...b.params, first.field.name, req.limit, offset],
  );
  if (withValue.length === req.limit) return { total: await total, uuids: withValue.map((r) => r.uuid) };
  let valued = offset + withValue.length;
  if (withValue.length === 0 && offset > 0) {
    const [n] = await sql.query<{ n: number }>(
      `select count(*)::int8 as n from record_values s join records r on r.rid = s.rid
        where s.fid = ${fid} and s.${column} is not null and ${scope} and ${b.sortExpression('r', first.field)} is not null`,
      [...b.params, first.field.name],
    );
    valued = Number(n?.n ?? 0);
  }
  const rest = await sql.query<{ uuid: string }>(
    `select r.uuid from records r where ${scope} and ${b.sortExpression('r', first.field)} is null order by ${order(sort.slice(1))} limit $3 offset $4`,
    [...b.params, req.limit - withValue.length, Math.max(0, offset - valued)],
  );
  return { total: await total, uuids: [...withValue, ...rest].map((r) => r.uuid) };
}
