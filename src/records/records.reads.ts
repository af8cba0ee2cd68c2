import { notFound } from '../../aggregates/kernel/errors.js';
import { compileIndexRequest, type CompiledFilter, type CompiledIndexRequest, type FilterCatalog } from '../../aggregates/record-filter/filter.compile.js';
import type { RecordIndexRequest } from '../../aggregates/record-filter/filter.schema.js';
import { filterFieldOf } from '../../aggregates/record/record.values.js';
import type { RelationPath } from '../../read-models/record-index/record-index.sql.js';
import { recordViews, recordViewsAt, type RecordViewRow } from '../../read-models/record-views.queries.js';
import { indexRecords, objectChanges, type IndexTarget } from '../../read-models/record-index/record-index.queries.js';
import { loadRecordObjects, usersByUuid, type RecordObject, type UserRef } from '../../read-models/records.queries.js';
import type { CommandContext } from '../commands/command-handler.js';
import { loadObjectSchemaByUuid } from '../../read-models/schema.queries.js';
import type { Db } from '../db/db.js';
import { toRecordView, type RecordView, type ViewOptions } from './record-view.js';
import { keepIndex, keptIndex } from './index-cache.js';
import { recordObjects } from './object-cache.js';
import { definitionsOf, objectNotFound, type Created } from './records.service.js';
import { recordViewLoader } from './view-loader.js';

export const catalogOf = (objects: readonly RecordObject[]): FilterCatalog['properties'] => {
  const out: Record<string, ReturnType<typeof filterFieldOf>> = {};
  for (const o of objects) for (const p of o.properties) if (!Object.hasOwn(out, p.name)) out[p.name] = filterFieldOf(p);
  return out;
};

/** Whether a request names a relation (a dotted key, or a group item with `relation`). */
function namesRelation(req: RecordIndexRequest): boolean {
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
export function makeRecordReads(deps: { db: Db }) {
  const { db } = deps;

  const load = recordViewLoader(db);

  /** A record by uuid: its row from a batched read, its definitions from the object cache. */
  async function one(tenant: string, uuid: string, objectName: string | undefined, opts: ViewOptions): Promise<{ view: RecordView; row: RecordViewRow }> {
    const row = await load(tenant, uuid, { links: true });
    if (!row || (objectName !== undefined && !row.object_names.some((o) => o.name === objectName))) throw notFound('Record', uuid);
    // object_names: the primary object first, then the extended ones (live objects only).
    const objects = await recordObjects(db, tenant, row.object_names.map((o) => o.name));
    return { view: toRecordView(row, opts, definitionsOf(objects)), row };
  }

  /** The total and the page's records: a kept result when the object has not changed since, else read (and kept). */
  async function matches(target: IndexTarget, compiled: CompiledIndexRequest, links: boolean): Promise<{ total: number; rows: RecordViewRow[] }> {
    const { tenant, objectUuid } = target;
    const slot = keptIndex(target, compiled);
    if (slot?.kept) {
      // The kept page's records and the object's change count, in one statement: the result holds
      // when no record of the object changed since it was read.
      const { kept } = slot;
      const at = kept.uuids.length > 0 ? await recordViewsAt(db, tenant, objectUuid, kept.uuids, { links }) : { rows: [], version: await objectChanges(db, tenant, objectUuid) };
      if (at.version === kept.version) return { total: kept.total, rows: at.rows };
    }
    const result = await indexRecords(db, target, compiled);
    if (slot) keepIndex(slot.key, result);
    return { total: result.total, rows: await recordViews(db, tenant, result.uuids, { links }) };
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
    const defsOf = (r: RecordViewRow) =>
      definitionsOf([r.primary_object_uuid, ...[...r.extends].sort()].flatMap((u) => byUuid.get(u) ?? []));
    return { total, page: compiled.page, perPage: compiled.limit, rows: rows.map((r) => toRecordView(r, { ...opts, fields }, defsOf(r))) };
  }

  // Display names of writers, kept a minute: a create answers without reading its record back.
  const names = new Map<string, { user: UserRef; until: number }>();
  async function userRef(uuid: string | null, now: number): Promise<UserRef[]> {
    if (uuid === null) return [];
    const hit = names.get(uuid);
    if (hit && hit.until > now) return [hit.user];
    const user = (await usersByUuid(db, [uuid])).get(uuid);
    if (!user) return [];
    if (names.size > 10_000) names.clear();
    names.set(uuid, { user, until: now + 60_000 });
    return [user];
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
      object_names: objects.map((o) => ({ uuid: o.objectUuid, name: o.name })),
      properties: [],
      teams: [],
      users: await userRef(ctx.userUuid, ctx.now),
      links: [],
    };
    return toRecordView(row, opts, definitionsOf([primary!, ...[...extended].sort((a, b) => (a.objectUuid < b.objectUuid ? -1 : 1))]));
  }

  return { one, page, created, objectNotFound };
}

export type RecordReads = ReturnType<typeof makeRecordReads>;
