import type { FastifyBaseLogger } from 'fastify';
import { compileFilter, type CompiledFilter, type FilterCatalog } from '../../aggregates/record-filter/filter.compile.js';
import { evaluateFilter, type FilterableRecord } from '../../aggregates/record-filter/filter.evaluate.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { problems } from '../../aggregates/kernel/problems.js';
import { parseTopic } from '../../aggregates/webhook/webhook.topics.js';
import type { WebhookFilter } from '../../aggregates/webhook/webhook.schemas.js';
import { linksOfRecords, type RecordLinkView } from '../../read-models/record-links.queries.js';
import { getRecords, loadRecordObject, loadRecordObjects, type RecordRow } from '../../read-models/records.queries.js';
import { loadObjectSchemaByUuid, type RelationEnd } from '../../read-models/schema.queries.js';
import { newestRecordsOf, type WebhookRow } from '../../read-models/webhooks.queries.js';
import type { Db } from '../db/db.js';
import { catalogOf, relationCatalog } from '../records/records.reads.js';
import type { RecordSnapshot } from './occurrences.js';
import type { RelatedRecord } from './payloads.js';
import type { FindRecord } from './test-payloads.js';
import type { DeliveryRules } from './webhooks.reactor.js';

/** At most this many connections per relation are looked at before relationFilters and relationLimit. */
const MAX_LINKS_SCANNED = 1000;

/** The filter catalog of a record: its objects' properties, and the properties of the objects it can walk to. */
async function catalogFor(db: Db, tenant: string, record: RecordSnapshot): Promise<FilterCatalog> {
  const uuids = [record.objectUuid, ...record.extends].filter((u): u is string => Boolean(u));
  const objects = await loadRecordObjects(db, tenant, uuids);
  objects.sort((a, b) => Number(b.objectUuid === record.objectUuid) - Number(a.objectUuid === record.objectUuid));
  const relations = record.objectUuid ? (await relationCatalog(db, tenant, record.objectUuid)).relations : {};
  return { properties: catalogOf(objects), relations };
}

/** Compiles a webhook filter against a catalog; throws the 400 of the records' filter language. */
export function compileWebhookFilter(catalog: FilterCatalog, filter: WebhookFilter, at = 'body.filter.groups'): CompiledFilter {
  return compileFilter(catalog, { groups: filter.groups, at: { filters: 'body.filters', groups: at } });
}

const endName = (end: RelationEnd) => end.endName ?? end.name;

/** The relation end `name` designates for a record of this object: by its name at this end, its name, or the other object's name. */
function endNamed(ends: readonly RelationEnd[], name: string): RelationEnd | undefined {
  return ends.find((e) => endName(e) === name) ?? ends.find((e) => e.name === name) ?? ends.find((e) => e.otherObjectName === name);
}

function otherSide(link: RecordLinkView, end: RelationEnd, recordUuid: string): string | null {
  if (link.relation_uuid !== end.relationUuid) return null;
  if (end.side === 'origin' && link.from_record === recordUuid) return link.to_record;
  if (end.side === 'target' && link.to_record === recordUuid) return link.from_record;
  return null;
}

interface Connected {
  row: RecordRow;
  edge: Record<string, unknown>;
}

const filterable = (row: RecordRow): FilterableRecord => ({
  uuid: row.uuid,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  createdBy: row.created_by,
  updatedBy: row.updated_by,
  deletedAt: row.deleted_at,
  properties: row.vals,
});

/** What of a webhook the schema can vouch for. */
export interface WebhookShape {
  topic: string;
  filter: WebhookFilter | null;
  includeRelations: readonly string[];
  relationFilters: Readonly<Record<string, WebhookFilter>>;
}

/**
 * Checks a webhook against the company's schema when its topic names an existing object: a
 * property_changed topic names one of its properties, the filter compiles against its properties
 * and relations, includeRelations name relations it can walk, relationFilters compile against the
 * related objects. A filter or includeRelations on an object that does not exist yet is refused
 * (nothing to check them against); a bare topic on it is fine (the object may come later).
 */
export async function checkWebhookAgainstSchema(db: Db, tenant: string, shape: WebhookShape): Promise<void> {
  const topic = parseTopic(shape.topic);
  if (!topic || topic.kind === 'named') return;
  const p = problems();
  const object = await loadRecordObject(db, tenant, topic.objectName);
  const filtered = Boolean(shape.filter && shape.filter.groups.length > 0);
  if (!object) {
    if (filtered) p.add('body.filter', `the topic's object ${topic.objectName} does not exist, so the filter cannot be checked`, 'Create the object first, or leave the filter out', 'NOT_FOUND');
    if (shape.includeRelations.length > 0) p.add('body.includeRelations', `the topic's object ${topic.objectName} does not exist, so it has no relations`, 'Create the object and its relations first', 'NOT_FOUND');
    p.throwIfAny('The webhook names an object that does not exist');
    return;
  }
  if (topic.kind === 'property_changed' && !object.properties.some((prop) => prop.name === topic.propertyName)) {
    p.add('body.topic', `${topic.objectName} has no property ${topic.propertyName}`, `Use one of: ${object.properties.map((prop) => prop.name).join(', ') || '(none)'} (GET /api/v2/webhooks/property-topics)`, 'INVALID_VALUE');
  }
  const schema = await loadObjectSchemaByUuid(db, tenant, object.objectUuid);
  const ends = (schema?.relations ?? []).filter((e) => e.navigable);
  shape.includeRelations.forEach((name, i) => {
    if (!endNamed(ends, name)) {
      p.add(`body.includeRelations.${i}`, `${topic.objectName} has no relation ${name}`, `Use one of: ${ends.map(endName).join(', ') || '(none)'}`, 'RELATION_NOT_ALLOWED');
    }
  });
  p.throwIfAny('The webhook does not fit the schema');
  if (filtered) {
    const relations = (await relationCatalog(db, tenant, object.objectUuid)).relations;
    compileWebhookFilter({ properties: catalogOf([object]), relations }, shape.filter!);
  }
  for (const [name, filter] of Object.entries(shape.relationFilters)) {
    const end = endNamed(ends, name);
    if (!end || filter.groups.length === 0) continue;
    compileWebhookFilter({ properties: catalogOf(await loadRecordObjects(db, tenant, [end.otherObjectUuid])) }, filter, `body.relationFilters.${name}.groups`);
  }
}

/**
 * The delivery rules over the records' read models: the filter evaluated by the records'
 * evaluator on the record as it was right after the event (relation conditions on the records
 * connected now), related records for includeRelations, all within the event's tenant.
 */
export function makeDeliveryRules(deps: { db: Db; log: FastifyBaseLogger }): DeliveryRules & { findRecord: FindRecord } {
  const { db } = deps;

  /** Live records connected to `record` through each end, with the connection's edge properties. */
  async function connected(tenant: string, record: RecordSnapshot, ends: readonly RelationEnd[]): Promise<Map<RelationEnd, Connected[]>> {
    const out = new Map<RelationEnd, Connected[]>();
    if (ends.length === 0) return out;
    const links = (await linksOfRecords(db, tenant, [record.uuid])).slice(0, MAX_LINKS_SCANNED * ends.length);
    const wanted = new Map<RelationEnd, { other: string; edge: Record<string, unknown> }[]>();
    for (const end of ends) {
      const list = [];
      for (const link of links) {
        const other = otherSide(link, end, record.uuid);
        if (other) list.push({ other, edge: link.edge_properties ?? {} });
      }
      wanted.set(end, list);
    }
    const rows = await getRecords(db, tenant, [...new Set([...wanted.values()].flat().map((w) => w.other))]);
    const byUuid = new Map(rows.filter((r) => r.deleted_at === null).map((r) => [r.uuid, r]));
    for (const [end, list] of wanted) {
      out.set(end, list.flatMap((w) => (byUuid.has(w.other) ? [{ row: byUuid.get(w.other)!, edge: w.edge }] : [])));
    }
    return out;
  }

  async function matches(tenant: string, filter: WebhookFilter, record: RecordSnapshot): Promise<boolean> {
    if (!record.objectUuid) return false;
    const catalog = await catalogFor(db, tenant, record);
    let compiled: CompiledFilter;
    try {
      compiled = compileWebhookFilter(catalog, filter);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // The schema changed under the filter (a property went away): nothing matches until it is fixed.
      deps.log.warn({ tenant, err: err.message }, 'webhook filter no longer compiles against the schema');
      return false;
    }
    const relationNames = new Set([...compiled.all, ...compiled.anyOf.flat()].flatMap((c) => (c.field.relation ? [c.field.relation] : [])));
    let related: FilterableRecord['related'] = {};
    if (relationNames.size > 0) {
      const schema = await loadObjectSchemaByUuid(db, tenant, record.objectUuid);
      const ends = (schema?.relations ?? []).filter((e) => e.navigable && relationNames.has(endName(e)));
      const rows = await connected(tenant, record, ends);
      related = Object.fromEntries([...rows].map(([end, list]) => [endName(end), list.map((x) => filterable(x.row))]));
    }
    return evaluateFilter(compiled, {
      uuid: record.uuid,
      createdAt: record.createdAt ?? 0,
      updatedAt: record.updatedAt ?? 0,
      deletedAt: record.deletedAt,
      properties: record.properties,
      related,
    });
  }

  return {
    matchesFilter: (tenant, webhook, record) => (record && webhook.filter ? matches(tenant, webhook.filter, record) : Promise.resolve(record !== null)),

    async relatedRecords(tenant, webhook: Pick<WebhookRow, 'include_relations' | 'relation_filters' | 'relation_limit'>, record) {
      if (!record?.objectUuid || webhook.include_relations.length === 0 || webhook.relation_limit === 0) return [];
      const schema = await loadObjectSchemaByUuid(db, tenant, record.objectUuid);
      const ends = new Map<string, RelationEnd>();
      for (const name of webhook.include_relations) {
        const end = endNamed((schema?.relations ?? []).filter((e) => e.navigable), name);
        if (end) ends.set(name, end);
      }
      const rows = await connected(tenant, record, [...new Set(ends.values())]);
      const out: RelatedRecord[] = [];
      for (const [name, end] of ends) {
        let list = rows.get(end) ?? [];
        const filter = webhook.relation_filters[name];
        if (filter && filter.groups.length > 0) {
          const objects = await loadRecordObjects(db, tenant, [end.otherObjectUuid]);
          try {
            const compiled = compileWebhookFilter({ properties: catalogOf(objects) }, filter, `body.relationFilters.${name}.groups`);
            list = list.filter((x) => evaluateFilter(compiled, filterable(x.row)));
          } catch (err) {
            if (!(err instanceof DomainError)) throw err;
            list = [];
          }
        }
        for (const { row, edge } of list.slice(0, webhook.relation_limit)) {
          out.push({ relationName: name, relationUuid: end.relationUuid, direction: end.side === 'origin' ? 'outgoing' : 'incoming', objectName: end.otherObjectName, uuid: row.uuid, properties: row.vals, edgeProperties: edge });
        }
      }
      return out;
    },

    async propertyTypes(tenant, objectUuid) {
      if (!objectUuid) return {};
      const schema = await loadObjectSchemaByUuid(db, tenant, objectUuid);
      return Object.fromEntries((schema?.properties ?? []).map((p) => [p.name, p.type]));
    },

    async objectNames(tenant, objectUuids) {
      return (await loadRecordObjects(db, tenant, objectUuids)).map((o) => o.name);
    },

    /** The newest live record of the object (up to 50 looked at) that `accept` takes. */
    async findRecord(tenant, objectName, accept) {
      for (const r of await newestRecordsOf(db, tenant, objectName, 50)) {
        const snapshot: RecordSnapshot = {
          uuid: r.uuid, objectUuid: r.primary_object_uuid, objectName: r.object_name, extends: r.extends, extendedNames: {},
          properties: r.vals, createdAt: r.created_at, updatedAt: r.updated_at, deletedAt: null, revision: r.revision,
        };
        if (await accept(snapshot)) return snapshot;
      }
      return null;
    },
  };
}
