import type { ExpectedStreamRevision } from './port.js';

/**
 * One statement per append (a CTE that moves the stream's head and inserts the events), prepared
 * once per connection. `$3` is the JSON array of events; `$4` the expected stream revision where needed.
 * No row back means the revision check failed.
 */
const head: Record<'no_stream' | 'exact' | 'stream_exists' | 'any', string> = {
  no_stream: `insert into streams as s values ($1, $2, jsonb_array_length($3::jsonb) - 1)
    on conflict do nothing returning -1::bigint as base`,
  exact: `update streams s set revision = s.revision + jsonb_array_length($3::jsonb)
    where s.tenant = $1 and s.stream_id = $2 and s.revision = $4::bigint returning $4::bigint as base`,
  stream_exists: `update streams s set revision = s.revision + jsonb_array_length($3::jsonb)
    where s.tenant = $1 and s.stream_id = $2 returning s.revision - jsonb_array_length($3::jsonb) as base`,
  any: `insert into streams as s values ($1, $2, jsonb_array_length($3::jsonb) - 1)
    on conflict (tenant, stream_id) do update set revision = s.revision + jsonb_array_length($3::jsonb)
    returning s.revision - jsonb_array_length($3::jsonb) as base`,
};

const statement = (mode: keyof typeof head) => `with h as (${head[mode]})
insert into events as e (tenant, stream_id, revision, type, version, data, metadata, occurred_at)
select $1, $2, h.base + x.i, x.ev->>'type', (x.ev->>'version')::int, x.ev->'data', x.ev->'metadata',
       (x.ev->'metadata'->>'occurredAt')::bigint
from h, jsonb_array_elements($3::jsonb) with ordinality as x(ev, i)
order by x.i
returning e.revision, e.position, e.transaction_id::text as tx_id`;

const statements = Object.fromEntries((Object.keys(head) as (keyof typeof head)[]).map((m) => [m, statement(m)])) as Record<keyof typeof head, string>;

export function appendStatement(expected: ExpectedStreamRevision): { name: string; text: string; expected: number | null } {
  if (typeof expected === 'number' && expected >= 0) return { name: 'append_exact', text: statements.exact, expected };
  const mode = typeof expected === 'number' ? 'no_stream' : expected;
  return { name: `append_${mode}`, text: statements[mode], expected: null };
}
