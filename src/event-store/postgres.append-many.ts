import type { ExpectedStreamRevision } from './port.js';

/** One append of a group commit: the stream, its events (JSON) and the revision it expects. */
export interface AppendRequest {
  tenant: string;
  streamId: string;
  /** The events as the JSON array the single-append statement takes. */
  payload: string;
  expected: ExpectedStreamRevision;
}

/**
 * Several appends to distinct streams in one statement (a group commit): each stream's head moves
 * by the mode its append asks for, and the events of every append whose check passed are inserted
 * in request order. An append whose check failed inserts nothing and has no row in the result.
 * The streams must be distinct: one statement cannot move one head twice. `appendManyCtes` are the
 * same as CTEs (`heads`: the streams moved; `appended`: the events), for statements that write
 * more with the append (a projection's `withAppend`).
 */
export const appendManyCtes = `req as (
  select r.i, r.tenant, r.stream_id, r.mode, r.expected, r.events, jsonb_array_length(r.events) as n
    from jsonb_to_recordset($1::jsonb) as r(i int, tenant text, stream_id text, mode text, expected bigint, events jsonb)
), h_no as (
  insert into streams as s (tenant, stream_id, revision)
  select tenant, stream_id, n - 1 from req where mode = 'no_stream'
  on conflict do nothing returning s.tenant, s.stream_id, s.revision
), h_any as (
  insert into streams as s (tenant, stream_id, revision)
  select tenant, stream_id, n - 1 from req where mode = 'any'
  on conflict (tenant, stream_id) do update set revision = s.revision + excluded.revision + 1
  returning s.tenant, s.stream_id, s.revision
), h_exact as (
  update streams s set revision = s.revision + r.n from req r
   where r.mode = 'exact' and s.tenant = r.tenant and s.stream_id = r.stream_id and s.revision = r.expected
  returning s.tenant, s.stream_id, s.revision
), h_exists as (
  update streams s set revision = s.revision + r.n from req r
   where r.mode = 'stream_exists' and s.tenant = r.tenant and s.stream_id = r.stream_id
  returning s.tenant, s.stream_id, s.revision
), heads as (
  select * from h_no union all select * from h_any union all select * from h_exact union all select * from h_exists
), appended as (
  insert into events as e (tenant, stream_id, revision, type, version, data, metadata, occurred_at)
  select r.tenant, r.stream_id, h.revision - r.n + x.i, x.ev->>'type', (x.ev->>'version')::int, x.ev->'data', x.ev->'metadata',
         (x.ev->'metadata'->>'occurredAt')::bigint
    from req r join heads h on h.tenant = r.tenant and h.stream_id = r.stream_id,
         jsonb_array_elements(r.events) with ordinality as x(ev, i)
   order by r.i, x.i
  returning e.tenant, e.stream_id, e.revision, e.position, e.transaction_id::text as tx_id
)`;

export const appendManySql = `with ${appendManyCtes} select * from appended order by position`;

const modeOf = (expected: ExpectedStreamRevision) =>
  typeof expected === 'number' ? (expected >= 0 ? 'exact' : 'no_stream') : expected;

/** The statement's one parameter: the requests as a JSON array (the events inlined, not re-encoded). */
export function appendManyParam(requests: readonly AppendRequest[]): string {
  const rows = requests.map((r, i) => {
    const expected = typeof r.expected === 'number' && r.expected >= 0 ? r.expected : null;
    return `{"i":${i},"tenant":${JSON.stringify(r.tenant)},"stream_id":${JSON.stringify(r.streamId)},"mode":"${modeOf(r.expected)}","expected":${expected},"events":${r.payload}}`;
  });
  return `[${rows.join(',')}]`;
}

export const streamKey = (tenant: string, streamId: string) => `${tenant}\u0000${streamId}`;
