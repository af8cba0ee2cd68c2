import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { propertiesOf, type Api } from './api.js';
import type { Format } from './records-import.js';
import { makeProgress } from './progress.js';

const PAGE = 100;

/** A value as a CSV cell: JSON for arrays and objects, '' for null. */
export function cellOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

async function write(out: Writable, chunk: string | unknown[]) {
  if (!out.write(chunk)) await once(out, 'drain');
}

/**
 * Exports the records of `objectName` page by page (oldest first) to `path` ('-': stdout), as CSV
 * (a uuid column, then one column per property) or NDJSON ({uuid, properties}); the file is
 * written as the pages arrive.
 */
export async function exportRecords(api: Api, o: { objectName: string; path: string; format: Format; quiet?: boolean }): Promise<{ rows: number; seconds: number }> {
  const started = Date.now();
  const props = await propertiesOf(api, o.objectName);
  const file = o.path === '-' ? process.stdout : createWriteStream(o.path);
  const csv = o.format === 'csv' ? stringify({ header: true, columns: ['uuid', ...props.map((p) => p.name)] }) : undefined;
  if (csv) csv.pipe(file);
  const out: Writable = csv ?? file;
  let progress: ReturnType<typeof makeProgress> | undefined;
  let rows = 0;
  for (let page = 0; ; page++) {
    const res = await api.call<{ uuid: string; properties: Record<string, unknown> }[]>('POST', `/api/v2/${encodeURIComponent(o.objectName)}/index`, {
      limit: PAGE,
      page,
      sort: [{ key: 'createdAt', direction: 'asc' }],
    });
    progress ??= makeProgress(o.quiet ? undefined : res.total, 'records');
    for (const r of res.data) {
      if (csv) await write(out, [r.uuid, ...props.map((p) => cellOf(r.properties[p.name]))]);
      else await write(out, `${JSON.stringify({ uuid: r.uuid, properties: r.properties })}\n`);
    }
    rows += res.data.length;
    progress.set(rows);
    if (res.data.length < PAGE) break;
  }
  progress?.stop();
  if (file !== process.stdout) {
    out.end();
    await once(file, 'finish');
  } else if (csv) {
    csv.end();
    await once(csv, 'end');
  }
  return { rows, seconds: (Date.now() - started) / 1000 };
}
