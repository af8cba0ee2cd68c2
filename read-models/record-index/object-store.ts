import { baseColumns, cellsOf, dropRecord, emptyColumns, putRecord, SEARCH_COLUMN, type ObjectColumns } from './object-columns.js';
import { requestColumns } from './column-scan.js';
import { prepareScanSteps, scanPrepared } from './scan-prepare.js';
import type { CompiledIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { objectRows, type RowsAfter } from './object-rows.queries.js';
import { inSlices } from './in-slices.js';
import { recordChangesSince } from './record-changes.queries.js';
import { objectRecordCount } from '../records.queries.js';
import type { Sql } from '../../ports/sql.js';

/**
 * The in-process index of filtered lists (ADR 0006): an object's records, column by column, for
 * the fields its list requests filter and sort by, with the snapshot they were read at and the
 * object's change count then. A filtered request is answered by scanning the columns
 * (column-scan.ts) and reading its page's records with the change count
 * in one statement: the same count, and the columns held at that statement too. Another count,
 * and the columns are brought up to date from the event log (the records changed since their
 * snapshot, read as match sets are: ADR 0002), or read again when too much changed.
 *
 * Nothing of this is built while a request waits (ADR 0019): a request whose object is not held,
 * or held without what its scan reads (a column, its value sets or postings, the sort's row
 * order), is answered by SQL, and the object is read (in pages of ROWS_PER_READ records) and
 * prepared in the background, in slices that give the event loop back (`inSlices`): one
 * tenant's first query of a large object never holds the other requests. Later requests of that
 * shape find it ready.
 *
 * Each process holds at most INDEX_STORE_CELLS values (rows times columns, and what scans derive
 * from them: row orders, folded text, gram postings, row bitsets, counted again after each scan
 * and refresh) over every object (least recently used out first); an object too large for it
 * alone is answered by SQL. 0 turns the store off.
 */
let maxCells = 16_000_000;

export interface HeldObject {
  columns: ObjectColumns;
  snapshot: string;
  version: string;
  /** The refresh under way, shared by the requests that need it. */
  refreshing?: Promise<void>;
  /** Whether a background build is making what a request shape reads (no refresh meanwhile: it would change rows under it). */
  preparing?: boolean;
  /** The cells counted for it in the process's total (`cellsOf` when last counted). */
  cells?: number;
}

/** What the store did since the process started (tests read it; counters, not a cache key). */
export const objectStoreStats = { answered: 0, refreshed: 0, read: 0, declined: 0, failed: 0 };

/**
 * Free text's postings cost about this many cells a row over its column (a record's lexemes,
 * their positions, its own distinct words): an object whose rows times this passes the bound is
 * not read for free text at all (ADR 0016).
 */
const TEXT_CELLS_PER_ROW = 16;
/** How long an object found too large for free text is left to SQL before it is tried again. */
const TEXT_DECLINED_MS = 10 * 60_000;
/** Objects whose free text the store does not hold (too large, or their read failed), until when. */
const textDeclined = new Map<string, number>();

/**
 * Records read by one statement of an object's first read (a page: its JSON parsed in one turn
 * of the event loop); fewer with the search vectors, whose text is tens of lexemes a record.
 */
const ROWS_PER_READ = 5000;
const ROWS_PER_READ_WITH_TEXT = 2000;

const held = new Map<string, HeldObject>();
/** The background build under way per object (at most one: another request shape waits for the next). */
const building = new Map<string, Promise<HeldObject | null>>();
let cells = 0;

export function configureObjectStore(max: number) {
  maxCells = max;
  held.clear();
  building.clear();
  textDeclined.clear();
  cells = 0;
}

/**
 * Whether the store may answer free text for the object: not when it found, in the last
 * TEXT_DECLINED_MS, that the object's text postings pass the bound or its vectors could not be
 * read. Without this, every free-text request would read the object's vectors again, make the
 * postings and drop them (seconds a request at 1,000,000 records).
 */
export function textMayBeHeld(tenant: string, objectUuid: string): boolean {
  const key = keyOf(tenant, objectUuid);
  const until = textDeclined.get(key);
  if (until === undefined) return maxCells > 0;
  if (Date.now() < until) return false;
  textDeclined.delete(key);
  return maxCells > 0;
}

function declineText(key: string) {
  textDeclined.delete(key);
  textDeclined.set(key, Date.now() + TEXT_DECLINED_MS);
  if (textDeclined.size > 10_000) textDeclined.delete(textDeclined.keys().next().value!);
}

export const objectStoreOn = () => maxCells > 0;

const keyOf = (tenant: string, objectUuid: string) => `${tenant}\u0000${objectUuid}`;

function keep(key: string, object: HeldObject | null) {
  const old = held.get(key);
  if (old) {
    cells -= old.cells ?? 0;
    held.delete(key);
  }
  if (!object) return;
  object.cells = cellsOf(object.columns);
  if (object.cells > maxCells) return;
  held.set(key, object);
  cells += object.cells;
  while (cells > maxCells) {
    const [first, out] = held.entries().next().value!;
    held.delete(first);
    cells -= out.cells ?? 0;
  }
}

/**
 * Counts again what a held object holds: a scan adds to it (a row order, folded text, gram
 * postings and bitsets made at first use), so does a refresh. Past the bound, the least recently
 * used objects go (this one too, when it alone passes it).
 */
function recount(key: string, object: HeldObject) {
  if (held.get(key) !== object) return;
  const now = cellsOf(object.columns);
  if (now === object.cells) return;
  if (now > maxCells && object.columns.columns.has(SEARCH_COLUMN)) declineText(key);
  cells += now - (object.cells ?? 0);
  object.cells = now;
  if (cells > maxCells) keep(key, now > maxCells ? null : object);
}

/** Counts what a scan of a held object made (object-columns.ts) in the store's bound. */
export function objectScanned(tenant: string, objectUuid: string, object: HeldObject) {
  recount(keyOf(tenant, objectUuid), object);
}

/** The cells the store counts now over every held object (tests read it). */
export const objectStoreCells = () => cells;

async function read(sql: Sql, tenant: string, objectUuid: string, keys: readonly string[]): Promise<HeldObject> {
  const all = [...new Set([...baseColumns, ...keys])];
  objectStoreStats.read++;
  const columns = emptyColumns(all);
  let first: { snapshot: string; version: string } | undefined;
  let after: RowsAfter | undefined;
  const limit = all.includes(SEARCH_COLUMN) ? ROWS_PER_READ_WITH_TEXT : ROWS_PER_READ;
  for (;;) {
    const rows = await objectRows(sql, tenant, objectUuid, all, { after, limit });
    first ??= rows;
    // A loop, not push(...uuids): a spread of a million arguments overflows the call stack.
    for (let i = 0; i < rows.uuids.length; i++) {
      columns.rows.set(rows.uuids[i]!, columns.uuids.length);
      columns.uuids.push(rows.uuids[i]!);
    }
    for (const key of all) {
      const column = columns.columns.get(key)!;
      for (const value of rows.columns[key]!) column.push(value);
    }
    if (rows.uuids.length < limit || !rows.last) break;
    after = rows.last;
  }
  return { columns, snapshot: first.snapshot, version: first.version };
}

/**
 * The held object when it answers `request` at once: its columns held and everything its scan
 * reads made (`scanPrepared`). Else null, and the object is read and prepared for the request in
 * the background (`prepareObject`); the caller answers from SQL meanwhile.
 */
export function readyObject(sql: Sql, tenant: string, objectUuid: string, request: CompiledIndexRequest & { text?: readonly string[] }): HeldObject | null {
  if (maxCells === 0) return null;
  const key = keyOf(tenant, objectUuid);
  const now = held.get(key);
  if (now && requestColumns(request).every((k) => now.columns.columns.has(k)) && scanPrepared(now.columns, request)) {
    held.delete(key);
    held.set(key, now);
    return now;
  }
  void prepareObject(sql, tenant, objectUuid, request);
  return null;
}

/**
 * Reads the object's columns for `request` (when not held with them) and makes what its scan
 * reads, in slices (ADR 0019); resolves with the held object, or null when it is too large to hold
 * or its read failed. One build per object at a time: a call while one runs gets that one.
 */
export function prepareObject(sql: Sql, tenant: string, objectUuid: string, request: CompiledIndexRequest & { text?: readonly string[] }): Promise<HeldObject | null> {
  const key = keyOf(tenant, objectUuid);
  const under = building.get(key);
  if (under) return under;
  // Set before the first await, so that concurrent first requests share the one build.
  const run = build(sql, tenant, objectUuid, key, request).finally(() => {
    if (building.get(key) === run) building.delete(key);
  });
  building.set(key, run);
  return run;
}

async function build(sql: Sql, tenant: string, objectUuid: string, key: string, request: CompiledIndexRequest & { text?: readonly string[] }): Promise<HeldObject | null> {
  const keys = requestColumns(request);
  let object = held.get(key);
  if (!object || !keys.every((k) => object!.columns.columns.has(k))) {
    const wanted = [...new Set([...baseColumns, ...keys, ...(object ? object.columns.columns.keys() : [])])];
    const read = await load(sql, tenant, objectUuid, wanted);
    if (!read || cellsOf(read.columns) > maxCells) return null;
    keep(key, read);
    object = read;
  }
  if (held.get(key) !== object) return null;
  try {
    await object.refreshing;
    object.preparing = true;
    await inSlices(prepareScanSteps(object.columns, request));
  } catch {
    objectStoreStats.failed++;
    return null;
  } finally {
    object.preparing = false;
  }
  recount(key, object);
  return held.get(key) === object ? object : null;
}

/** Resolves when no background build runs (tests wait for one before asking the store again). */
export async function objectStoreSettled(): Promise<void> {
  while (building.size > 0) await Promise.all(building.values());
}

/** An object's columns read, or null when it is too large to hold or the read failed. */
async function load(sql: Sql, tenant: string, objectUuid: string, wanted: string[]): Promise<HeldObject | null> {
  try {
    // Too large to hold: known from the object's counters before reading a row.
    const count = await objectRecordCount(sql, tenant, objectUuid);
    const text = wanted.includes(SEARCH_COLUMN);
    if ((count.live + count.archived) * (wanted.length + 1 + (text ? TEXT_CELLS_PER_ROW : 0)) > maxCells) {
      objectStoreStats.declined++;
      if (text) declineText(keyOf(tenant, objectUuid));
      return null;
    }
    return await read(sql, tenant, objectUuid, wanted);
  } catch {
    if (wanted.includes(SEARCH_COLUMN)) declineText(keyOf(tenant, objectUuid));
    // A read that fails (its time limit on a very large object, say) leaves the request to SQL.
    objectStoreStats.failed++;
    return null;
  }
}

/**
 * Brings held columns up to the present: the object's records changed since their snapshot are
 * read from the event log and put in place (or dropped), or, past the refresh's bounds, every
 * row is read again. One refresh at a time per object; the others wait for it. False (nothing
 * done) while a background build prepares the object: its caller answers from SQL.
 */
export async function refreshObject(sql: Sql, tenant: string, objectUuid: string, object: HeldObject): Promise<boolean> {
  if (object.preparing) return false;
  if (object.refreshing) return object.refreshing.then(() => true);
  objectStoreStats.refreshed++;
  const run = (async () => {
    // Held search vectors come with the changed rows, so the text postings follow them too.
    const changes = await recordChangesSince(sql, tenant, objectUuid, object.snapshot, undefined, undefined, object.columns.columns.has(SEARCH_COLUMN));
    if (changes.overflow) {
      const again = await read(sql, tenant, objectUuid, [...object.columns.columns.keys()]);
      object.columns = again.columns;
      object.snapshot = again.snapshot;
      object.version = again.version;
    } else {
      for (const uuid of changes.changed) dropRecord(object.columns, uuid);
      for (const row of changes.rows) putRecord(object.columns, row);
      object.snapshot = changes.snapshot;
      object.version = changes.version;
    }
    recount(keyOf(tenant, objectUuid), object);
  })();
  object.refreshing = run;
  try {
    await run;
  } finally {
    object.refreshing = undefined;
  }
  return true;
}

/** The object's held columns as they are now, or null (nothing read or built: tests and diagnostics). */
export const heldNow = (tenant: string, objectUuid: string): HeldObject | null => held.get(keyOf(tenant, objectUuid)) ?? null;

/** The background builds under way (GET /metrics: `platform_record_index_builds`). */
export const objectStoreBuilding = () => building.size;
