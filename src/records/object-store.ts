import { baseColumns, cellsOf, dropRecord, emptyColumns, putRecord, SEARCH_COLUMN, type ObjectColumns } from '../../aggregates/record-filter/object-columns.js';
import { objectRows } from '../../read-models/record-index/object-rows.queries.js';
import { recordChangesSince } from '../../read-models/record-index/record-changes.queries.js';
import { objectRecordCount } from '../../read-models/records.queries.js';
import type { Sql } from '../../ports/sql.js';

/**
 * The in-process index of filtered lists (ADR 0006): an object's records, column by column, for
 * the fields its list requests filter and sort by, with the snapshot they were read at and the
 * object's change count then. A filtered request is answered by scanning the columns
 * (aggregates/record-filter/column-scan.ts) and reading its page's records with the change count
 * in one statement: the same count, and the columns held at that statement too. Another count,
 * and the columns are brought up to date from the event log (the records changed since their
 * snapshot, read as match sets are: ADR 0002), or read again when too much changed.
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

const held = new Map<string, HeldObject>();
const loading = new Map<string, Promise<HeldObject | null>>();
let cells = 0;

export function configureObjectStore(max: number) {
  maxCells = max;
  held.clear();
  loading.clear();
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
  const rows = await objectRows(sql, tenant, objectUuid, all);
  const columns = emptyColumns(all);
  // A loop, not push(...uuids): a spread of a million arguments overflows the call stack.
  for (let i = 0; i < rows.uuids.length; i++) {
    columns.uuids.push(rows.uuids[i]!);
    columns.rows.set(rows.uuids[i]!, i);
  }
  for (const key of all) columns.columns.set(key, rows.columns[key]!);
  return { columns, snapshot: rows.snapshot, version: rows.version };
}

/**
 * The object's held columns with at least `keys`, read when not held (or held without one of
 * them: then read again with both); null when the object is too large to hold.
 */
export async function heldObject(sql: Sql, tenant: string, objectUuid: string, keys: readonly string[]): Promise<HeldObject | null> {
  if (maxCells === 0) return null;
  const key = keyOf(tenant, objectUuid);
  const has = (o: HeldObject) => keys.every((k) => o.columns.columns.has(k));
  const now = held.get(key);
  if (now && has(now)) {
    held.delete(key);
    held.set(key, now);
    return now;
  }
  const under = loading.get(key);
  if (under) {
    const got = await under;
    if (got && has(got)) return got;
  }
  const wanted = [...new Set([...baseColumns, ...keys, ...(now ? now.columns.columns.keys() : [])])];
  // Set before the first await, so that concurrent first reads share the one read.
  const shared = load(sql, tenant, objectUuid, wanted).then((o) => {
    if (!o || cellsOf(o.columns) > maxCells) return null;
    keep(key, o);
    return o;
  });
  loading.set(key, shared);
  void shared.finally(() => {
    if (loading.get(key) === shared) loading.delete(key);
  });
  return shared;
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
 * row is read again. One refresh at a time per object; the others wait for it.
 */
export async function refreshObject(sql: Sql, tenant: string, objectUuid: string, object: HeldObject): Promise<void> {
  if (object.refreshing) return object.refreshing;
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
}
