import type { FastifyInstance } from 'fastify';
import { getRecord } from '../../read-models/records.queries.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { historyRoutes } from './history.routes.js';
import { makeRecordHistory } from './records.history.js';
import { makeListAsOf } from './list-as-of.js';
import { makeRecordReads, type RecordReads } from './records.reads.js';
import { recordsRoutes } from './records.routes.js';
import { makeRecordsService, type RecordsService } from './records.service.js';
import { makeSavedFilters } from './saved-filters.service.js';
import { savedFiltersRoutes } from './saved-filters.routes.js';
import { recordTeamsRoutes } from './record-teams.routes.js';
import { recordUserRoutes } from './record-user.routes.js';

/** Whether `recordUuid` is a live record of `objectUuid` in the tenant (the schema's record port). */
export const recordExistsIn = (db: Db) => async (tenant: string, objectUuid: string, recordUuid: string) => {
  const row = await getRecord(db, tenant, recordUuid);
  return row !== null && row.deleted_at === null && (row.primary_object_uuid === objectUuid || row.extends.includes(objectUuid));
};

/**
 * Records (issue 5): `/api/v2/records/...`, the object-scoped `/api/v2/{objectName}/...`, saved
 * filters under `/api/v2/filters` and the event log `/api/v2/events/index`. Returns the records
 * service, which the app hands to syncs.
 */
export async function registerRecords(app: FastifyInstance, deps: { db: Db; store: EventStore }): Promise<{ records: RecordsService; reads: RecordReads }> {
  const { db, store } = deps;
  const records = makeRecordsService({ db, store });
  const reads = makeRecordReads({ db, store });
  const history = makeRecordHistory({ db, store });
  const savedFilters = makeSavedFilters({ db, store, records });
  await app.register(recordsRoutes({ records, reads, history, savedFilters, pageAsOf: makeListAsOf({ db, store }) }), { prefix: '/api/v2' });
  await app.register(historyRoutes({ db, history }), { prefix: '/api/v2' });
  await app.register(recordTeamsRoutes({ db, store }), { prefix: '/api/v2' });
  await app.register(recordUserRoutes({ records, reads }), { prefix: '/api/v2' });
  await app.register(savedFiltersRoutes({ savedFilters }), { prefix: '/api/v2/filters' });
  return { records, reads };
}
