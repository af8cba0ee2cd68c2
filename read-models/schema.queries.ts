import type { PropertyDefinition } from '../aggregates/property/property.schemas.js';
import { reversed, type Cardinality, type Direction, type EdgePropertyDefinition } from '../aggregates/relation/relation.schemas.js';
import type { TraitName } from '../aggregates/trait/trait.schemas.js';
import type { Sql } from '../ports/sql.js';
import { objectByName, objectByUuid, type ObjectRow } from './objects.queries.js';
import { livePropertiesOf, toDefinition } from './properties.queries.js';
import type { RelationRow } from './relations.queries.js';

/** A relation as one of its objects sees it. */
export interface RelationEnd {
  relationUuid: string;
  name: string;
  /** Whether this object is the relation's origin or its target (a self-relation gives both). */
  side: 'origin' | 'target';
  /** The relation's name at this end (fromName at the origin, toName at the target). */
  endName: string | null;
  otherObjectUuid: string;
  otherObjectName: string;
  /** The cardinality read from this end (ONE_TO_MANY seen from its target is MANY_TO_ONE). */
  cardinality: Cardinality;
  direction: Direction;
  /** Whether records of this object can walk to the other end (always at the origin; at the target only when BIDIRECTIONAL). */
  navigable: boolean;
  edgeProperties: EdgePropertyDefinition[];
}

/** An object's live schema: what a record of it is validated against and shown with. */
export interface ObjectSchema {
  object: { uuid: string; name: string; label: string; plural: string; description: string; icon: string; group: string | null };
  /** Live properties only: a soft-deleted property and its values stay hidden until restored. */
  properties: (PropertyDefinition & { uuid: string })[];
  /** Live relations whose other end is a live object. */
  relations: RelationEnd[];
  traits: Partial<Record<TraitName, Record<string, unknown>>>;
}

/** A relation row (the one declaration: relations.queries.ts) with the end this object is at. */
type EndRow = Pick<RelationRow, 'relation_uuid' | 'name' | 'from_object_uuid' | 'to_object_uuid' | 'cardinality' | 'direction' | 'from_name' | 'to_name' | 'edge_properties'> & {
  other_name: string;
  side: 'origin' | 'target';
};

async function relationEnds(sql: Sql, tenant: string, objectUuid: string): Promise<RelationEnd[]> {
  const rows = await sql.query<EndRow>(
    `select r.relation_uuid, r.name, r.from_object_uuid, r.to_object_uuid, r.cardinality, r.direction, r.from_name, r.to_name, r.edge_properties, o.name as other_name, s.side
       from rm_relations r
       cross join lateral (values ('origin', r.from_object_uuid, r.to_object_uuid), ('target', r.to_object_uuid, r.from_object_uuid)) as s(side, self, other)
       join rm_objects o on o.tenant = r.tenant and o.object_uuid = s.other and o.deleted_at is null
      where r.tenant = $1 and s.self = $2 and r.deleted_at is null and r.purged_at is null
      order by r.idx, r.name, s.side`,
    [tenant, objectUuid],
  );
  return rows.map((r) => ({
    relationUuid: r.relation_uuid,
    name: r.name,
    side: r.side,
    endName: r.side === 'origin' ? r.from_name : r.to_name,
    otherObjectUuid: r.side === 'origin' ? r.to_object_uuid : r.from_object_uuid,
    otherObjectName: r.other_name,
    cardinality: r.side === 'origin' ? r.cardinality : reversed(r.cardinality),
    direction: r.direction,
    navigable: r.side === 'origin' || r.direction === 'BIDIRECTIONAL',
    edgeProperties: r.edge_properties,
  }));
}

async function schemaOf(sql: Sql, tenant: string, object: ObjectRow | null): Promise<ObjectSchema | null> {
  if (!object || object.deleted_at !== null) return null;
  const [properties, relations, traits] = await Promise.all([
    livePropertiesOf(sql, tenant, object.object_uuid),
    relationEnds(sql, tenant, object.object_uuid),
    sql.query<{ trait: TraitName; config: Record<string, unknown> }>('select trait, config from rm_traits where tenant = $1 and object_uuid = $2 and removed_at is null', [tenant, object.object_uuid]),
  ]);
  return {
    object: { uuid: object.object_uuid, name: object.name, label: object.label, plural: object.plural, description: object.description, icon: object.icon, group: object.grp },
    properties: properties.map((p) => ({ uuid: p.property_uuid, ...toDefinition(p) })),
    relations,
    traits: Object.fromEntries(traits.map((t) => [t.trait, t.config])),
  };
}

/**
 * The live schema of the tenant's object `objectName` (null when there is none, or it is
 * soft-deleted): the snapshot that record routes validate values against and pass to queries.
 */
export async function loadObjectSchema(sql: Sql, tenant: string, objectName: string): Promise<ObjectSchema | null> {
  return schemaOf(sql, tenant, await objectByName(sql, tenant, objectName));
}

export async function loadObjectSchemaByUuid(sql: Sql, tenant: string, objectUuid: string): Promise<ObjectSchema | null> {
  return schemaOf(sql, tenant, await objectByUuid(sql, tenant, objectUuid));
}
