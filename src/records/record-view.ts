import { z } from 'zod';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import { viewDefinitions, type RecordLinkEntry, type RecordViewRow } from '../../read-models/record-views.queries.js';
import { actorFieldsOf, actorUuidsOf, auditFields, auditUserSchema, type Actors } from '../http/audit-fields.js';

/** The users a page of records shows: its writers and, for User-trait records, their users. */
export const recordActorUuids = (rows: readonly RecordViewRow[]) => [...actorUuidsOf(rows), ...rows.map((r) => r.user_uuid)];

export const returnFormats = ['LEGACY', 'USER_FRIENDLY', 'EXPANDED'] as const;
export type ReturnFormat = (typeof returnFormats)[number];
export type ParseMode = 'raw' | 'human_readable' | 'structured';

/** `parse`: omitted / false / db / raw: stored values; true / human_readable: display strings; structured: rich JSON. */
export const parseSchema = z
  .enum(['false', 'db', 'raw', 'true', 'human_readable', 'structured'])
  .optional()
  .transform((v): ParseMode => (v === 'true' || v === 'human_readable' ? 'human_readable' : v === 'structured' ? 'structured' : 'raw'))
  .describe('omitted, false, db or raw: stored values; true or human_readable: display strings; structured: {value, display, type, format, label}');

export const formatSchema = z
  .preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(returnFormats))
  .default('USER_FRIENDLY')
  .describe('USER_FRIENDLY (default): properties as a name-to-value map; LEGACY: properties as [{name, type, value}]; EXPANDED: the map plus the related records in relations');

const relationEntrySchema = z
  .object({
    relationName: z.string(),
    relationUuid: z.string(),
    uuid: z.string(),
    properties: z.record(z.string(), z.unknown()),
    edgeProperties: z.record(z.string(), z.unknown()),
    record: z.record(z.string(), z.unknown()).nullable(),
    objectName: z.string().nullable(),
    primary: z.boolean(),
    merge: z.boolean(),
  })
  .meta({ id: 'RecordRelationEntry' });

/** A record (spec 2.2). */
export const recordSchema = z
  .object({
    uuid: z.string(),
    name: z.string().nullable(),
    label: z.string().nullable(),
    object: z.string(),
    objects: z.array(z.string()),
    ...auditFields,
    index: auditFields.index.describe("The record's revision (its stream revision; the If-Match / expectedRevision of the next update)"),
    properties: z.union([z.record(z.string(), z.unknown()), z.array(z.object({ name: z.string(), type: z.string(), value: z.unknown(), label: z.string() }))]),
    relations: z.array(relationEntrySchema),
    teams: z.array(z.object({ uuid: z.string(), name: z.string() })),
    user: auditUserSchema.nullable().describe('Records of the object with the User trait: the user the record is linked to while a member of the company (docs/records.md), else null'),
  })
  .meta({ id: 'Record' });
export type RecordView = z.infer<typeof recordSchema>;

export interface ViewOptions {
  format: ReturnFormat;
  parse: ParseMode;
  /** Only these properties (spec `fields`, index `show`). */
  fields?: ReadonlySet<string>;
}

type Def = PropertyDefinition;

function display(def: Def, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const optionLabel = (v: unknown) => def.options?.find((o) => o.value === v)?.label ?? String(v);
  if (def.format === 'select') return optionLabel(value);
  if (def.format === 'multi-select' && Array.isArray(value)) return value.map(optionLabel).join(', ');
  if (def.type === 'boolean') return value ? 'Yes' : 'No';
  if (def.format === 'currency' && typeof value === 'number') return value.toFixed(2);
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  return JSON.stringify(value);
}

function shown(def: Def, value: unknown, parse: ParseMode): unknown {
  if (parse === 'raw') return value;
  if (parse === 'human_readable') return display(def, value);
  return { value, display: display(def, value), type: def.type, format: def.format, label: def.label };
}

/** The display name of a record: its `name`, `title` or `label` property, else its first text value. */
export function nameOf(vals: Record<string, unknown>, defs: readonly Def[]): string | null {
  for (const key of ['name', 'title', 'label']) if (typeof vals[key] === 'string') return vals[key] as string;
  const first = defs.find((d) => d.type === 'string' && typeof vals[d.name] === 'string');
  return first ? (vals[first.name] as string) : null;
}

/** The `properties` of a record's response: a name-to-value map, or LEGACY's array. */
export function properties(vals: Record<string, unknown>, defs: readonly Def[], opts: ViewOptions) {
  const wanted = defs.filter((d) => !opts.fields || opts.fields.has(d.name));
  const value = (d: Def) => shown(d, Object.hasOwn(vals, d.name) ? vals[d.name] : null, opts.parse);
  if (opts.format === 'LEGACY') return wanted.map((d) => ({ name: d.name, type: d.type, value: value(d), label: d.label }));
  return Object.fromEntries(wanted.map((d) => [d.name, value(d)]));
}

function relationEntry(row: RecordViewRow, link: RecordLinkEntry, opts: ViewOptions) {
  const primary = link.from_record === row.uuid;
  const expanded = opts.format === 'EXPANDED' && link.other_vals !== null;
  return {
    relationName: primary ? link.from_name || link.relation_name : (link.to_name ?? link.relation_name),
    relationUuid: link.relation_uuid,
    uuid: link.other_uuid,
    properties: expanded ? link.other_vals! : {},
    edgeProperties: link.edge_properties ?? {},
    record: expanded ? { uuid: link.other_uuid, object: link.other_object, deletedAt: link.other_deleted_at, properties: link.other_vals } : null,
    objectName: link.other_object,
    primary,
    merge: false,
  };
}

/** The `relations` of a record's response (spec 2.5). */
export const relationsOf = (row: RecordViewRow, opts: ViewOptions) => (row.links ?? []).map((l) => relationEntry(row, l, opts));

/**
 * A record's response (spec 2.2) from its view row (`actors`: its writers, looked up by
 * `auditActors`; `defs`: the definitions, when the caller has them).
 */
export function toRecordView(row: RecordViewRow, opts: ViewOptions, actors: Actors, defs: readonly Def[] = viewDefinitions(row)): RecordView {
  const name = nameOf(row.vals, defs);
  return {
    uuid: row.uuid,
    name,
    label: name,
    object: row.object_name,
    objects: row.object_names.map((o) => o.name),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    ...actorFieldsOf(row, actors),
    index: row.revision,
    revision: row.revision,
    properties: properties(row.vals, defs, opts),
    relations: relationsOf(row, opts),
    teams: row.teams,
    user: actors.member(row.user_uuid),
  };
}
