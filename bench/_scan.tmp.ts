import { compareRecord } from '../bench/compare.data.js';
import { compileIndexRequest } from '../aggregates/record-filter/filter.compile.js';
import { recordIndexRequestSchema } from '../aggregates/record-filter/filter.schema.js';
import { requestColumns, scanColumns } from '../aggregates/record-filter/column-scan.js';
import { emptyColumns, putRecord } from '../aggregates/record-filter/object-columns.js';
const N = Number(process.env.N ?? 100000);
const catalog = { properties: { name: { name: 'name', type: 'text' as const }, status: { name: 'status', type: 'text' as const }, due: { name: 'due', type: 'date' as const } } };
for (const page of [0, 199]) {
  const req = compileIndexRequest(catalog, recordIndexRequestSchema.parse({ filters: [{ key: 'name', operator: 'contains', value: 'ru' }, { key: 'status', operator: 'equals', value: 'active' }], sort: [{ key: 'due', direction: 'desc' }], page, limit: 25 }));
  const store = emptyColumns(requestColumns(req));
  if (page === 0) console.log(JSON.stringify(compareRecord(1)));
  for (let i = 0; i < N; i++) putRecord(store, { uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, createdAt: i, updatedAt: i, deletedAt: null, properties: compareRecord(i) });
  for (let k = 0; k < 5; k++) scanColumns(store, req);
  const t0 = performance.now(); const c0 = process.cpuUsage();
  let r;
  for (let k = 0; k < 50; k++) r = scanColumns(store, req);
  const cu = process.cpuUsage(c0); console.log(`page ${page}: cpu ${((cu.user + cu.system) / 1000 / 50).toFixed(2)} ms, wall ${((performance.now() - t0) / 50).toFixed(2)} ms per scan, total ${r!.total}`);
}
