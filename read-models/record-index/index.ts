/**
 * The record-list engine, entered here only (test/architecture.test.ts): what a filtered, sorted
 * or free-text list of records is answered from. The filter language it reads (schema, compile,
 * evaluate, values) is aggregates/record-filter/; everything else is this folder:
 *
 * - SQL: the index statement built from a compiled request (record-index.sql.ts,
 *   record-index.queries.ts, field-keys.ts) and the record changes since a snapshot
 *   (record-changes.queries.ts);
 * - kept results: results keyed by the object's change count and match sets brought up to date
 *   from the event log (index-cache.ts, match-set.ts);
 * - the in-process index (ADR 0006, 0016, 0019): an object's columns held in memory
 *   (object-store.ts, read by object-rows.queries.ts, built in slices by in-slices.ts and steps.ts)
 *   and scanned (column-scan.ts over object-columns.ts, row-bits.ts, bits-scan.ts, row-tests.ts,
 *   gram-postings.ts, text-postings.ts, text-rank.ts, text-queries.ts).
 *
 * Files of the folder import each other directly; nothing outside does.
 */

// What the server uses: the records' reads (src/records/records.reads.ts), the app's
// configuration (src/app.ts) and the metrics (src/metrics/metrics.ts).
export type { RelationPath } from './record-index.sql.js';
export { indexRecords, objectChanges, type IndexTarget } from './record-index.queries.js';
export { recordChangesSince } from './record-changes.queries.js';
export { configureIndexCache, keepIndex, keepSet, keptIndex, keptSet, MATCH_SET_MAX, readingSet, setBeingRead, type KeptSet } from './index-cache.js';
export { applyChanges, matchSetFromRaw, pageOf } from './match-set.js';
export { configureObjectStore, objectScanned, objectStoreBuilding, objectStoreCells, objectStoreStats, readyObject, refreshObject, textMayBeHeld } from './object-store.js';
export { plainTextQuery } from './text-queries.js';
export { scanColumns } from './column-scan.js';

// What the engine's laws, tests and bench reach besides (test/records/, test/metrics/,
// bench/column-scan.bench.ts): columns built by hand and scanned, the scan and the sort in steps,
// the held objects and their builds, kept match sets' order, the value-set limit, ts_rank
// replicated, and the shape of a page of an object's rows (a test's stand-in for the database).
export { requestColumns } from './column-scan.js';
export { prepareScanSteps, scanPrepared } from './scan-prepare.js';
export { cellsOf, dropRecord, emptyColumns, gramPostingsOf, putRecord, type ObjectColumns } from './object-columns.js';
export { heldNow, objectStoreSettled, prepareObject } from './object-store.js';
export { setSort, type RankedRecord } from './match-set.js';
export { MAX_VALUE_SETS } from './row-bits.js';
export { sortSteps, type Steps } from './steps.js';
export { parseVector, plainQuery, tsRank } from './text-rank.js';
export type { ObjectRows } from './object-rows.queries.js';

// Lists as of a log position (issue 38, ADR 0020): src/records/list-as-of.ts, the app's
// configuration, the bench (bench/timetravel.bench.ts) and the property test.
export { asOfStats, configureAsOf, listAsOf, logPositions, propertiesAt, type RecordThen } from './as-of.js';
