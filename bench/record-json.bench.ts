/**
 * `npx tsx bench/record-json.bench.ts`: the CPU of writing a page's reply (ADR 0011), no server, no
 * database: BENCH_PAGE (default 20) records of bench:compare's object (bench/compare.data.ts),
 * written by one member of the company, turned into the list reply as the routes did before (the
 * views built by `toRecordView`, then JSON.stringify of the envelope) and as they do now (each
 * record's JSON text from its row, `pageJson`), interleaved (A B, B A, ...) over BENCH_ROUNDS rounds (default 5)
 * of BENCH_REPS pages each (default 2,000). Prints the process CPU µs per page (less disturbed by
 * a loaded machine than wall time) and checks both give the same bytes.
 */
import type { PropertyDefinition } from '../aggregates/property/property.schemas.js';
import type { RecordViewRow } from '../read-models/record-views.queries.js';
import { auditActors } from '../src/http/audit-fields.js';
import { page, pageJson } from '../src/http/envelope.js';
import { recordJson, recordLayout } from '../src/records/record-json.js';
import { toRecordView, type ViewOptions } from '../src/records/record-view.js';
import { compareProperties, compareRecord } from './compare.data.js';

const SIZE = Number(process.env.BENCH_PAGE ?? 20);
const REPS = Number(process.env.BENCH_REPS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const say = (s: string) => process.stdout.write(`${s}\n`);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const tenant = '00000000-0000-4000-8000-00000000c0de';
const writer = '00000000-0000-4000-8000-0000000000a1';
const user = { user_uuid: writer, email: 'ana.silva@example.com', firstname: 'Ana', lastname: 'Silva', created_at: 1_700_000_000_000, updated_at: 1_700_000_000_000, revision: 3, role: 'ADMIN' as const, active: true, scopes: ['records:read', 'records:write'], team_scopes: [] };
const sql = { query: async <T,>() => [user] as T[] };

const defs = compareProperties.map((p) => ({ options: null, required: false, unique: false, minLength: null, maxLength: null, min: null, max: null, pattern: null, description: '', icon: '', group: null, relationUuid: null, ...p }) as PropertyDefinition);
const rows: RecordViewRow[] = Array.from({ length: SIZE }, (_, i) => ({
  uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  object_uuid: tenant, primary_object_uuid: tenant, object_name: 'deals', extends: [], vals: compareRecord(i),
  created_at: 1_700_000_000_000 + i, updated_at: 1_700_000_100_000 + i, created_by: writer, updated_by: writer, deleted_at: null, deleted_by: null,
  revision: 1, user_uuid: null, object_names: [{ uuid: tenant, name: 'deals' }], properties: [], teams: [], links: [],
}));
const opts: ViewOptions = { format: 'USER_FRIENDLY', parse: 'raw' };

async function main() {
  const actors = await auditActors(sql, tenant, [writer]);
  const before = () => JSON.stringify(page(rows.map((r) => toRecordView(r, opts, actors, defs)), 1_000, 0, SIZE));
  const after = () => {
    const layout = recordLayout(defs, opts);
    return pageJson(rows.map((r) => recordJson(r, layout, actors)), 1_000, 0, SIZE);
  };
  if (before() !== after()) throw new Error('the two replies differ');
  say(`${SIZE} records a page, ${before().length} bytes; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  let sink = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const line: string[] = [];
    const sides = [['before (views + JSON.stringify)', before], ['after (JSON from rows)', after]] as const;
    // A B, then B A: neither side always runs first.
    for (const [name, write] of round % 2 === 1 ? sides : [...sides].reverse()) {
      const start = cpu();
      for (let i = 0; i < REPS; i++) sink += write().length;
      line.push(`${name} ${(((cpu() - start) * 1000) / REPS).toFixed(0)} µs`);
    }
    say(`round ${round}: ${line.join(', ')} of CPU a page`);
  }
  if (sink === 0) say('');
}

await main();
