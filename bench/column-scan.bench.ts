/**
 * `npx tsx bench/column-scan.bench.ts`: the CPU of the column scan alone (column-scan.ts), no
 * server, no database: bench:compare's object (bench/compare.data.ts) held as the in-process index
 * holds it (the columns of bench:compare's filtered list), and the list's requests answered
 * BENCH_REPS times each three ways, interleaved over 3 rounds: the matches as a list of rows with
 * every row read, as a list of rows from the gram postings (gram-postings.ts), and as a row
 * bitset (bits-scan.ts, ADR 0014). BENCH_N records (default 100,000). Prints the process CPU ms
 * per scan (less disturbed by a loaded machine than wall time) and what making the columns took.
 */
import { compileIndexRequest, type FilterCatalog } from '../aggregates/record-filter/filter.compile.js';
import { recordIndexRequestSchema } from '../aggregates/record-filter/filter.schema.js';
import { emptyColumns, gramPostingsOf, putRecord, requestColumns, scanColumns } from '../read-models/record-index/index.js';
import { filterFieldOf } from '../aggregates/record/record.values.js';
import { compareProperties, compareRecord } from './compare.data.js';

const N = Number(process.env.BENCH_N ?? 100_000);
const REPS = Number(process.env.BENCH_REPS ?? 200);
const fragment = process.env.BENCH_FRAGMENT ?? 'ru';
const say = (s: string) => process.stdout.write(`${s}\n`);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const catalog: FilterCatalog = { properties: Object.fromEntries(compareProperties.map((p) => [p.name, filterFieldOf(p as never)])) };
const contains = { key: 'name', operator: 'contains', value: fragment };
const active = { key: 'status', operator: 'equals', value: 'active' };
const request = (filters: unknown[], page: number) =>
  compileIndexRequest(catalog, recordIndexRequestSchema.parse({ filters, sort: [{ key: 'due', direction: 'desc' }], page, limit: 25 }));

let t0 = cpu();
const store = emptyColumns(requestColumns(request([contains, active], 0)));
for (let i = 0; i < N; i++) {
  putRecord(store, { uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, createdAt: 1_700_000_000_000 + i, updatedAt: 0, deletedAt: null, properties: compareRecord(i) } as never);
}
say(`${N.toLocaleString('en-US')} records put in the columns: ${(cpu() - t0).toFixed(0)} ms CPU`);
t0 = cpu();
const grams = gramPostingsOf(store, 'name');
say(`gram postings of name: ${(cpu() - t0).toFixed(0)} ms CPU, ${grams.postings.size} grams, ${grams.entries.toLocaleString('en-US')} rows in them`);
t0 = cpu();
scanColumns(store, request([contains, active], 0), { few: 1000, bits: false });
say(`first scan (the row order of due desc made): ${(cpu() - t0).toFixed(0)} ms CPU`);

const cases = [
  [`contains "${fragment}" + status = active, page 1`, request([contains, active], 0)],
  ['same, page 200', request([contains, active], 199)],
  [`contains "${fragment}" alone, page 1`, request([contains], 0)],
  ['status = active alone, page 1', request([active], 0)],
] as const;
const perScan = (req: (typeof cases)[number][1], postings: boolean, bits: boolean) => {
  const tuning = { few: 1000, postings, bits };
  for (let i = 0; i < 20; i++) scanColumns(store, req, tuning);
  const start = cpu();
  for (let i = 0; i < REPS; i++) scanColumns(store, req, tuning);
  return (cpu() - start) / REPS;
};
t0 = cpu();
scanColumns(store, request([contains, active], 0), { few: 1000, bits: true });
say(`first bitset scan (the scope's and status's sets made): ${(cpu() - t0).toFixed(0)} ms CPU`);
say('request | every row read, ms CPU/scan | gram postings | row bitsets');
for (let round = 0; round < 3; round++) {
  for (const [label, req] of cases) say(`${label} | ${perScan(req, false, false).toFixed(3)} | ${perScan(req, true, false).toFixed(3)} | ${perScan(req, true, true).toFixed(3)}`);
}
