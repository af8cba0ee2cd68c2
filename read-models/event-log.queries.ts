import type { Sql } from '../ports/sql.js';
import { escapeLike } from './list-spec.js';

/** What the company event log can be narrowed by (all optional; they AND together). */
export interface EventLogQuery {
  /** The companies searched; null: every company (SUPER_ADMIN only). */
  tenants: string[] | null;
  requestId?: string[];
  correlationId?: string[];
  causationId?: string[];
  /** Exact stream ids, or a prefix ending in `*` (e.g. `record-*`). */
  stream?: string[];
  type?: string[];
  userUuid?: string[];
  from?: number;
  to?: number;
  limit: number;
  offset: number;
  direction: 'asc' | 'desc';
}

export interface EventLogRow {
  position: number;
  tenant: string;
  stream_id: string;
  revision: number;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown> & { occurredAt: number };
  occurred_at: number;
}

/** `stream_id` is one of `streams`: exact ids, or prefixes ending in `*`. `arg` binds a parameter. */
export function streamCondition(streams: string[], arg: (v: unknown) => string): string {
  const exact = streams.filter((s) => !s.endsWith('*'));
  const prefixes = streams.filter((s) => s.endsWith('*')).map((s) => `${escapeLike(s.slice(0, -1))}%`);
  const parts = [...(exact.length ? [`stream_id = any(${arg(exact)}::text[])`] : []), ...(prefixes.length ? [`stream_id like any(${arg(prefixes)}::text[])`] : [])];
  return `(${parts.join(' or ')})`;
}

/** The events of the log that match, in time order, and how many match (PostgreSQL event store). */
export async function eventLog(sql: Sql, q: EventLogQuery): Promise<{ rows: EventLogRow[]; total: number }> {
  const params: unknown[] = [];
  const arg = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where: string[] = [];
  if (q.tenants !== null) where.push(q.tenants.length === 1 ? `tenant = ${arg(q.tenants[0])}` : `tenant = any(${arg(q.tenants)}::text[])`);
  const anyOf = (expr: string, values?: string[]) => {
    if (values?.length) where.push(`${expr} = any(${arg(values)}::text[])`);
  };
  anyOf(`metadata ->> 'requestId'`, q.requestId);
  if (q.correlationId?.length) {
    // Two indexes hold a correlation: the requestId one where it equals the requestId, the partial
    // one where it does not (migration 0007).
    const ids = arg(q.correlationId);
    where.push(`((metadata ->> 'correlationId' = any(${ids}::text[]) and (metadata ->> 'correlationId') is distinct from (metadata ->> 'requestId'))
      or (metadata ->> 'requestId' = any(${ids}::text[]) and metadata ->> 'correlationId' = metadata ->> 'requestId'))`);
  }
  anyOf(`metadata ->> 'causationId'`, q.causationId);
  anyOf('type', q.type);
  anyOf(`metadata ->> 'userUuid'`, q.userUuid);
  if (q.stream?.length) where.push(streamCondition(q.stream, arg));
  if (q.from !== undefined) where.push(`occurred_at >= ${arg(q.from)}`);
  if (q.to !== undefined) where.push(`occurred_at <= ${arg(q.to)}`);
  const cond = where.length ? where.join(' and ') : 'true';
  const countParams = [...params];
  const dir = q.direction === 'asc' ? 'asc' : 'desc';
  const rows = await sql.query<EventLogRow>(
    `select position, tenant, stream_id, revision, type, version, data, metadata, occurred_at from events where ${cond}
      order by occurred_at ${dir}, position ${dir} limit ${arg(q.limit)} offset ${arg(q.offset)}`,
    params,
  );
  const [count] = await sql.query<{ n: number }>(`select count(*)::int8 as n from events where ${cond}`, countParams);
  return { rows, total: Number(count?.n ?? 0) };
}
