import { notFound } from '../../aggregates/kernel/errors.js';
import { compileIndexRequest, type CompiledFilter, type CompiledIndexRequest, type FilterCatalog } from '../../aggregates/record-filter/filter.compile.js';
import type { RecordIndexRequest } from '../../aggregates/record-filter/filter.schema.js';
import { filterFieldOf } from '../../aggregates/record/record.values.js';
import {
  applyChanges,
  indexRecords,
  type IndexTarget,
  keepIndex,
  keepSet,
  keptIndex,
  keptSet,
  type KeptSet,
  MATCH_SET_MAX,
  matchSetFromRaw,
  objectChanges,
  objectScanned,
  objectStoreStats,
  pageOf,
  plainTextQuery,
  readingSet,
  readyObject,
  recordChangesSince,
  refreshObject,
  type RelationPath,
  scanColumns,
  setBeingRead,
  textMayBeHeld,
} from '../../read-models/record-index/index.js';
import { recordViews, recordViewsAt, type RecordViewRow } from '../../read-models/record-views.queries.js';
import { loadRecordObjects, type RecordObject } from '../../read-models/records.queries.js';
import { auditActors } from '../http/audit-fields.js';
import type { CommandContext } from '../commands/command-handler.js';
import { loadObjectSchemaByUuid } from '../../read-models/schema.queries.js';
import type { Db } from '../db/db.js';
import { recordActorUuids, toRecordView, type RecordView, type ViewOptions } from './record-view.js';
import { recordLayout, type RecordLayout, type WrittenRecords } from './record-json.js';
import type { EventStore } from '../event-store/port.js';
import { recordObjects } from './object-cache.js';
import { definitionsOf } from './record-definitions.js';
import { objectNotFound, type Created } from './records.service.js';
import { recordViewLoader } from './view-loader.js';

export const catalogOf = (objects: readonly RecordObject[]): FilterCatalog['properties'] => {
  const out: Record<string, ReturnType<typeof filterFieldOf>> = {};
  for (const o of objects) for (const p of o.properties) if (!Object.hasOwn(out, p.name)) out[p.name] = filterFieldOf(p);
  return out;
};

/** Whether a request names a relation (a dotted key, or a group item with `relation`). */
export function namesRelation(req: RecordIndexRequest): boolean {
  const groups = [...(req.groups ?? []), ...(req.filter?.groups ?? [])];
  return req.filters.some((f) => f.key.includes('.') && !f.key.startsWith('properties.')) || groups.some((g) => g.items.some((i) => Boolean(i.relation) || ((i.property ?? i.key ?? '').includes('.') && !(i.property ?? i.key ?? '').startsWith('properties.'))));
}

/** The relations a record of `object` can walk, by the name at its end, with the other object's fields. */
export async function relationCatalog(db: Db, tenant: string, objectUuid: string) {
  const schema = await loadObjectSchemaByUuid(db, tenant, objectUuid);
  const ends = (schema?.relations ?? []).filter((e) => e.navigable);
  const others = await loadRecordObjects(db, tenant, [...new Set(ends.map((e) => e.otherObjectUuid))]);
  const byUuid = new Map(others.map((o) => [o.objectUuid, o]));
  const relations: Record<string, { properties: FilterCatalog['properties'] }> = {};
  const paths: Record<string, RelationPath> = {};
  for (const end of ends) {
    const name = end.endName ?? end.name;
    const other = byUuid.get(end.otherObjectUuid);
    if (!other || Object.hasOwn(relations, name)) continue;
    relations[name] = { properties: catalogOf([other]) };
    paths[name] = { relationUuid: end.relationUuid, side: end.side, otherObjectUuid: end.otherObjectUuid };
  }
  return { relations, paths };
}

/** The read side of records: one record, a page of an object's records. */
export function makeRecordReads(deps: { db: Db; store: Pick<EventStore, 'name'> }) {
  const { db } = deps;
  // Record changes can be read from the event log in the read models' database (not EventStoreDB).
  const logged = deps.store.name !== 'eventstoredb';

  const load = recordViewLoader(db);

  /** A record by uuid: its row from a batched read, its definitions from the object cache, its actors. */
  async function one(tenant: string, uuid: string, objectName: string | undefined, opts: ViewOptions): Promise<WrittenRecords & { row: RecordViewRow }> {
    const row = await load(tenant, uuid, { links: true });
    if (!row || (objectName !== undefined && !row.object_names.some((o) => o.name === objectName))) throw notFound('Record', uuid);
    // object_names: the primary object first, then the extended ones (live objects only).
    const objects = await recordObjects(db, tenant, row.object_names.map((o) => o.name));
    const layout = recordLayout(definitionsOf(objects), opts);
    return { row, rows: [row], actors: await auditActors(db, tenant, recordActorUuids([row])), layoutOf: () => layout };
  }

  /**
   * The total and the page from a kept match set, brought up to date: when the object's change
   * count is what the set was read at, it holds as it is (one statement, with the page's records);
   * else with the record changes since its snapshot. Null when too much changed since (then the
   * matches are read again).
   */
  async function fromSet(target: IndexTarget, compiled: CompiledIndexRequest, links: boolean, kept: KeptSet, key: string) {
    const { tenant, objectUuid } = target;
    const before = pageOf(kept.set, compiled.page, compiled.limit);
    const at = before.length > 0 ? await recordViewsAt(db, tenant, objectUuid, before, { links }) : { rows: [], ...(await objectChanges(db, tenant, objectUuid)) };
    if (at.version === kept.version && at.snapshot) {
      keepSet(key, { ...kept, snapshot: at.snapshot });
      return { total: kept.set.members.length, rows: at.rows };
    }
    const changes = await recordChangesSince(db, tenant, objectUuid, kept.snapshot, compiled.query);
    if (changes.overflow) return null;
    const set = applyChanges(compiled, kept.set, changes.changed, changes.rows);
    keepSet(key, { set, snapshot: changes.snapshot, version: changes.version });
    const uuids = pageOf(set, compiled.page, compiled.limit);
    // The page's records read before the changes stand unless they changed; the others are read now.
    const changed = new Set(changes.changed);
    const byUuid = new Map(at.rows.filter((r) => !changed.has(r.uuid)).map((r) => [r.uuid, r]));
    const missing = uuids.filter((u) => !byUuid.has(u));
    if (missing.length > 0) for (const r of await recordViews(db, tenant, missing, { links })) byUuid.set(r.uuid, r);
    return { total: set.members.length, rows: uuids.flatMap((u) => byUuid.get(u) ?? []) };
  }

  /**
   * The total and the page's records from the object's held columns (object-store.ts): the
   * columns scanned, the page's records read with the object's change count; when it is not the
   * count the columns were read at, they are brought up to date and scanned again. Null when the
   * store does not answer (off, too large, not ready yet: being read or prepared in the background
   * (ADR 0019), an unfiltered list, free text that is not one word or an AND of words (ADR 0016), a
   * relation, or writes kept overtaking it).
   */
  async function fromStore(target: IndexTarget, compiled: CompiledIndexRequest, links: boolean): Promise<{ total: number; rows: RecordViewRow[] } | null> {
    const { tenant, objectUuid } = target;
    if (!logged || Object.keys(target.relations ?? {}).length > 0) return null;
    if (!compiled.query && compiled.filter.all.length === 0 && compiled.filter.anyOf.length === 0) return null;
    if (compiled.query && !textMayBeHeld(tenant, objectUuid)) return null;
    const text = compiled.query ? await plainTextQuery(db, objectUuid, compiled.query) : undefined;
    if (text === null) return null;
    const request = { ...compiled, text };
    for (let attempt = 0; attempt < 3; attempt++) {
      // Not ready (not held, or without what this scan reads): SQL answers, the build runs meanwhile (ADR 0019).
      const object = readyObject(db, tenant, objectUuid, request);
      if (!object) return null;
      const { version } = object;
      const { total, uuids } = scanColumns(object.columns, request);
      objectScanned(tenant, objectUuid, object);
      const at = uuids.length > 0 ? await recordViewsAt(db, tenant, objectUuid, uuids, { links }) : { rows: [], ...(await objectChanges(db, tenant, objectUuid)) };
      if (at.version === version && at.rows.length === uuids.length) {
        objectStoreStats.answered++;
        return { total, rows: at.rows };
      }
      if (!(await refreshObject(db, tenant, objectUuid, object))) return null;
    }
    return null;
  }

  /**
   * The total and the page's records: from the object's held columns, or from a kept match set (PostgreSQL event store) or a kept
   * result when the object has not changed since, else read (and kept).
   */
  async function matches(target: IndexTarget, compiled: CompiledIndexRequest, links: boolean): Promise<{ total: number; rows: RecordViewRow[] }> {
    const { tenant, objectUuid } = target;
    const stored = await fromStore(target, compiled, links);
    if (stored) return stored;
    const setSlot = logged ? keptSet(target, compiled) : null;
    if (setSlot?.kept) {
      const answer = await fromSet(target, compiled, links, setSlot.kept, setSlot.key);
      if (answer) return answer;
    }
    const shared = setSlot && setBeingRead(setSlot.key);
    if (shared) {
      // Read before this request came, and brought up to date after: its own writes show.
      const kept = await shared;
      const answer = kept && (await fromSet(target, compiled, links, kept, setSlot.key));
      if (answer) return answer;
    }
    const slot = keptIndex(target, compiled);
    if (slot?.kept) {
      // The kept page's records and the object's change count, in one statement: the result holds
      // when no record of the object changed since it was read.
      const { kept } = slot;
      const at = kept.uuids.length > 0 ? await recordViewsAt(db, tenant, objectUuid, kept.uuids, { links }) : { rows: [], ...(await objectChanges(db, tenant, objectUuid)) };
      if (at.version === kept.version) return { total: kept.total, rows: at.rows };
    }
    // The page's records come with the matches (one statement), unless the page is unfiltered.
    const reading = indexRecords(db, target, compiled, { members: setSlot ? MATCH_SET_MAX : undefined, views: { links } });
    if (setSlot) {
      const kept = reading.then((r) => (r.members && r.snapshot && r.version ? { set: matchSetFromRaw(compiled, r.members), snapshot: r.snapshot, version: r.version } : null));
      readingSet(setSlot.key, kept);
      keepSet(setSlot.key, await kept);
    }
    const result = await reading;
    if (slot && !(setSlot && result.members)) keepIndex(slot.key, result);
    return { total: result.total, rows: result.rows ?? (await recordViews(db, tenant, result.uuids, { links })) };
  }

  async function page(tenant: string, object: RecordObject, req: RecordIndexRequest, opts: ViewOptions & { savedFilter?: CompiledFilter }) {
    let catalog: FilterCatalog = { properties: catalogOf([object]) };
    let paths: Record<string, RelationPath> = {};
    if (namesRelation(req)) {
      const rel = await relationCatalog(db, tenant, object.objectUuid);
      catalog = { ...catalog, relations: rel.relations };
      paths = rel.paths;
    }
    const compiled = compileIndexRequest(catalog, req, opts.savedFilter);
    const links = opts.format === 'EXPANDED' || (req.show?.includes('relations') ?? true);
    const { total, rows } = await matches({ tenant, objectUuid: object.objectUuid, relations: paths }, compiled, links);
    const fields = compiled.show ? new Set(compiled.show) : opts.fields;
    // The page shares the object's definitions; records extending (or extended into) other objects add theirs.
    const wanted = [...new Set(rows.flatMap((r) => [r.primary_object_uuid, ...r.extends]))].filter((u) => u !== object.objectUuid);
    const byUuid = new Map([object, ...(await loadRecordObjects(db, tenant, wanted))].map((o) => [o.objectUuid, o]));
    const layouts = new Map<string, RecordLayout>();
    const layoutOf = (r: RecordViewRow) => {
      const uuids = [r.primary_object_uuid, ...[...r.extends].sort()];
      const key = uuids.join();
      const known = layouts.get(key);
      if (known) return known;
      const layout = recordLayout(definitionsOf(uuids.flatMap((u) => byUuid.get(u) ?? [])), { ...opts, fields });
      layouts.set(key, layout);
      return layout;
    };
    const actors = await auditActors(db, tenant, recordActorUuids(rows));
    return { total, page: compiled.page, perPage: compiled.limit, rows, actors, layoutOf };
  }

  /** The response to a create, from what the create wrote. */
  async function created(done: Created, ctx: CommandContext, opts: ViewOptions): Promise<RecordView> {
    const [primary, ...extended] = done.objects;
    const objects = [primary!, ...extended.sort((a, b) => (a.name < b.name ? -1 : 1))];
    const row: RecordViewRow = {
      uuid: done.uuid,
      object_uuid: primary!.objectUuid,
      primary_object_uuid: primary!.objectUuid,
      object_name: primary!.name,
      extends: done.objects.slice(1).map((o) => o.objectUuid),
      vals: done.properties,
      created_at: done.createdAt,
      updated_at: done.createdAt,
      created_by: ctx.userUuid,
      updated_by: ctx.userUuid,
      deleted_at: null,
      deleted_by: null,
      revision: done.revision,
      user_uuid: done.userUuid,
      object_names: objects.map((o) => ({ uuid: o.objectUuid, name: o.name })),
      properties: [],
      teams: [],
      links: [],
    };
    // The writer comes from the audit actors' cache: a create answers without reading its record back.
    const actors = await auditActors(db, ctx.tenant, [ctx.userUuid, done.userUuid], ctx.now);
    return toRecordView(row, opts, actors, definitionsOf([primary!, ...[...extended].sort((a, b) => (a.objectUuid < b.objectUuid ? -1 : 1))]));
  }

  return { one, page, created, objectNotFound };
}

export type RecordReads = ReturnType<typeof makeRecordReads>;
