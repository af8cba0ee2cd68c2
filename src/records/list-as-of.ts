import { z } from 'zod';
import { invalid, type ErrorType } from '../../aggregates/kernel/errors.js';
import { compileIndexRequest, type CompiledFilter } from '../../aggregates/record-filter/filter.compile.js';
import type { RecordIndexRequest } from '../../aggregates/record-filter/filter.schema.js';
import { canonicalDateTime } from '../../aggregates/record-filter/values.js';
import { listAsOf, logPositions, propertiesAt, type RecordThen } from '../../read-models/record-index/index.js';
import { toDefinition } from '../../read-models/properties.queries.js';
import type { RecordViewRow } from '../../read-models/record-views.queries.js';
import { loadRecordObjects, type RecordObject } from '../../read-models/records.queries.js';
import { auditActors } from '../http/audit-fields.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { recordLayout, type RecordLayout } from './record-json.js';
import { definitionsOf } from './record-definitions.js';
import { recordActorUuids, type ViewOptions } from './record-view.js';
import { catalogOf, namesRelation } from './records.reads.js';

/** `asOf` of a list: a log position (digits, as the event log and the feed show it) or an ISO 8601 time with a zone. */
export const listAsOfField = z
  .string()
  .max(40)
  .optional()
  .describe('Our extension (docs/records.md, "Lists as of a time"): a log position (e.g. 20577) or an ISO 8601 time with a zone: the page as it was then');

/** What an as-of page reflects: the log position, and the time asked for (when one was). */
export const asOfReplySchema = z
  .object({
    position: z.number().int().describe('The last log position the page reflects: the same request with asOf = this position answers the same'),
    time: z.number().int().nullable().describe('The time asked for (epoch ms), when asOf was a time'),
  })
  .meta({ id: 'ListAsOf' });
export type AsOfReply = z.infer<typeof asOfReplySchema>;

const bad = (message: string, suggestion: string, type: ErrorType = 'INVALID_VALUE') => invalid('body.asOf', message, suggestion, type);

/** A position (digits) or an ISO time (not in the future: what is not yet logged has no answer). */
function parseListAsOf(raw: string, now: number): { position: number } | { time: number } {
  if (/^\d{1,15}$/.test(raw)) return { position: Number(raw) };
  const iso = canonicalDateTime(raw);
  if (!iso) throw bad(`asOf "${raw}" is neither a log position nor a time`, 'Send a log position (e.g. 20577, as POST /api/v2/events/index shows it) or an ISO 8601 time with a zone (e.g. 2024-05-01T12:00:00Z)', 'INVALID_DATE');
  const time = Date.parse(iso);
  if (time > now) throw bad(`asOf ${iso} is in the future`, 'Send a time up to now (omit asOf for the list as it is)');
  return { time };
}

/** Object definitions as they were at `position`: the live objects' identity with the properties that existed then. */
async function objectsAt(db: Db, tenant: string, objects: readonly RecordObject[], position: number): Promise<RecordObject[]> {
  const rows = await propertiesAt(db, tenant, objects.map((o) => o.objectUuid), position);
  return objects.map((o) => ({
    ...o,
    properties: rows.filter((p) => p.object_uuid === o.objectUuid).map((p) => ({ uuid: p.property_uuid, ...toDefinition(p) })),
  }));
}

/**
 * A page of an object's records as it was at a log position or a time (issue 38, ADR 0020): the
 * schema then (the properties that existed), the records then, through the list engine's
 * `listAsOf`. Relations and teams are not of the record's stream: an as-of page shows none, and a
 * relation condition or a free-text query is a 400 (docs/records.md).
 */
export function makeListAsOf(deps: { db: Db; store: Pick<EventStore, 'name'>; now?: () => number }) {
  const { db } = deps;
  const now = deps.now ?? Date.now;

  return async function pageAsOf(tenant: string, object: RecordObject, req: RecordIndexRequest, raw: string, opts: ViewOptions & { savedFilter?: CompiledFilter }) {
    if (deps.store.name === 'eventstoredb') throw bad('asOf lists read the event log in the database; this server keeps its events in EventStoreDB', 'Omit asOf');
    const at = parseListAsOf(raw, now());
    if (req.query !== undefined && req.query.trim() !== '') throw invalid('body.query', 'a free-text query does not combine with asOf', 'Filter with filters (e.g. contains) instead of query, or omit asOf', 'INVALID_VALUE');
    if (namesRelation(req)) throw invalid('body.filters', 'a relation condition does not combine with asOf', 'Filter on the object\'s own properties, or omit asOf', 'INVALID_VALUE');
    const { head, atTime } = await logPositions(db, tenant, 'time' in at ? at.time : undefined);
    if ('position' in at && at.position > (head ?? 0)) throw bad(`asOf position ${at.position} is past the log's last event (${head ?? 0})`, `Send a position up to ${head ?? 0}, or omit asOf`);
    const position = 'position' in at ? at.position : (atTime ?? 0);
    const [then] = await objectsAt(db, tenant, [object], position);
    const compiled = compileIndexRequest({ properties: catalogOf([then!]) }, req, opts.savedFilter);
    const { total, rows: records } = await listAsOf(db, tenant, object.objectUuid, compiled, position);

    const others = [...new Set(records.flatMap((r) => [r.primaryObjectUuid, ...r.extends]))].filter((u) => u !== object.objectUuid);
    const byUuid = new Map([then!, ...(await objectsAt(db, tenant, await loadRecordObjects(db, tenant, others), position))].map((o) => [o.objectUuid, o]));
    const rows = records.map((r) => viewRow(r, object, byUuid));
    const fields = compiled.show ? new Set(compiled.show) : opts.fields;
    const layouts = new Map<string, RecordLayout>();
    const layoutOf = (r: RecordViewRow) => {
      const uuids = [r.primary_object_uuid, ...[...r.extends].sort()];
      const key = uuids.join();
      let layout = layouts.get(key);
      if (!layout) layouts.set(key, (layout = recordLayout(definitionsOf(uuids.flatMap((u) => byUuid.get(u) ?? [])), { ...opts, fields })));
      return layout;
    };
    const actors = await auditActors(db, tenant, recordActorUuids(rows));
    const reply: AsOfReply = { position, time: 'time' in at ? at.time : null };
    return { total, page: compiled.page, perPage: compiled.limit, rows, actors, layoutOf, asOf: reply };
  };
}

/** A record then, as the row a response is written from (in the listed object's context; no teams, no relations). */
function viewRow(r: RecordThen, listed: RecordObject, objects: ReadonlyMap<string, RecordObject>): RecordViewRow {
  const primary = objects.get(r.primaryObjectUuid);
  const names = [r.primaryObjectUuid, ...r.extends]
    .flatMap((u) => (objects.has(u) ? [{ uuid: u, name: objects.get(u)!.name }] : []))
    .sort((a, b) => (a.uuid === r.primaryObjectUuid ? -1 : b.uuid === r.primaryObjectUuid ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    uuid: r.uuid,
    object_uuid: listed.objectUuid,
    primary_object_uuid: r.primaryObjectUuid,
    object_name: primary?.name ?? r.objectName,
    extends: [...r.extends],
    vals: r.properties as Record<string, unknown>,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    created_by: r.createdBy,
    updated_by: r.updatedBy,
    deleted_at: r.deletedAt,
    deleted_by: r.deletedBy,
    revision: r.revision,
    user_uuid: r.userUuid,
    object_names: names,
    properties: [],
    teams: [],
    links: [],
  };
}

export type ListAsOfPage = Awaited<ReturnType<ReturnType<typeof makeListAsOf>>>;
