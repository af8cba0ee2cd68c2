import { createReadStream, statSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { ApiError, propertiesOf, type Api, type PropertyInfo } from './api.js';
import { makeProgress } from './progress.js';

export type Format = 'csv' | 'ndjson';

export interface Rejected {
  /** The row's number in the file: CSV data rows and NDJSON lines count from 1 (the CSV header is not a row). */
  row: number;
  error: string;
}

export interface ImportResult {
  rows: number;
  imported: number;
  rejected: Rejected[];
  seconds: number;
}

/** A CSV cell as the property's value: numbers and booleans typed, JSON arrays and objects parsed; '' is left out. */
export function cellValue(cell: string, prop: PropertyInfo | undefined): unknown {
  if (cell === '') return undefined;
  const t = cell.trim();
  if (prop?.type === 'number' || prop?.type === 'integer') {
    const n = Number(t);
    return t !== '' && Number.isFinite(n) ? n : cell;
  }
  if (prop?.type === 'boolean') return t === 'true' ? true : t === 'false' ? false : cell;
  if ((t.startsWith('[') && t.endsWith(']')) || (t.startsWith('{') && t.endsWith('}') && prop?.type !== 'string')) {
    try {
      return JSON.parse(t);
    } catch {
      return cell;
    }
  }
  return cell;
}

/** The rows of a file, one `{uuid?, properties}` at a time, streamed. */
async function* rowsOf(path: string, format: Format, props: Map<string, PropertyInfo>): AsyncGenerator<{ uuid?: string; properties: Record<string, unknown> }> {
  const input = path === '-' ? process.stdin : createReadStream(path);
  if (format === 'ndjson') {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (line.trim() === '') continue;
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(line) as Record<string, unknown>;
      } catch {
        yield { properties: { __invalidJson: line.slice(0, 80) } };
        continue;
      }
      const { uuid, properties, ...rest } = obj;
      yield { uuid: typeof uuid === 'string' && uuid ? uuid : undefined, properties: (properties as Record<string, unknown> | undefined) ?? rest };
    }
    return;
  }
  const parser = input.pipe(parse({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true }));
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    const properties: Record<string, unknown> = {};
    let uuid: string | undefined;
    for (const [column, cell] of Object.entries(record)) {
      if (column === 'uuid') {
        uuid = cell || undefined;
        continue;
      }
      const v = cellValue(cell, props.get(column));
      if (v !== undefined) properties[column] = v;
    }
    yield { uuid, properties };
  }
}

/** Counts a file's rows before the import, for the progress bar (a quick pass over the bytes). */
async function countRows(path: string, format: Format): Promise<number | undefined> {
  if (path === '-') return undefined;
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    last = chunk[chunk.length - 1] ?? last;
  }
  if (last !== 10 && statSync(path).size > 0) lines++;
  // A CSV row may hold line breaks in a quoted cell: the count is then an upper bound.
  return format === 'csv' ? Math.max(0, lines - 1) : lines;
}

/**
 * Imports a CSV or NDJSON file into `objectName`: one create per row through the records route,
 * `concurrency` at a time over keep-alive connections; a rejected row is kept with the API's
 * errors and the import goes on.
 */
export async function importRecords(api: Api, o: { objectName: string; path: string; format: Format; concurrency: number; rejectsPath?: string; quiet?: boolean }): Promise<ImportResult> {
  const started = Date.now();
  const props = new Map((await propertiesOf(api, o.objectName)).map((p) => [p.name, p]));
  const total = await countRows(o.path, o.format);
  const progress = makeProgress(o.quiet ? undefined : total, 'rows');
  const rejected: Rejected[] = [];
  const rejects = o.rejectsPath ? createWriteStream(o.rejectsPath) : undefined;
  const inFlight = new Set<Promise<void>>();
  let rows = 0;
  let imported = 0;
  const path = `/api/v2/${encodeURIComponent(o.objectName)}`;
  for await (const row of rowsOf(o.path, o.format, props)) {
    const n = ++rows;
    const job = (async () => {
      try {
        if ('__invalidJson' in row.properties) throw new Error(`not a JSON object: ${String(row.properties.__invalidJson)}`);
        await api.call('POST', path, { ...(row.uuid ? { uuid: row.uuid } : {}), properties: row.properties });
        imported++;
      } catch (err) {
        const error = err instanceof ApiError ? err.short() : (err as Error).message;
        rejected.push({ row: n, error });
        if (rejects && !rejects.write(`${JSON.stringify({ row: n, error, ...row })}\n`)) await once(rejects, 'drain');
      } finally {
        progress.tick();
      }
    })();
    inFlight.add(job);
    void job.finally(() => inFlight.delete(job));
    if (inFlight.size >= o.concurrency) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  progress.stop();
  if (rejects) {
    rejects.end();
    await once(rejects, 'finish');
  }
  rejected.sort((a, b) => a.row - b.row);
  return { rows, imported, rejected, seconds: (Date.now() - started) / 1000 };
}
