import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import type { RecordViewRow } from '../../read-models/record-views.queries.js';
import type { Actors } from '../http/audit-fields.js';
import { nameOf, properties, relationsOf, toRecordView, type RecordView, type ViewOptions } from './record-view.js';

/**
 * A record's response written as JSON text straight from its view row: the same bytes as
 * `JSON.stringify(toRecordView(...))` (test/records/record-json.property.test.ts holds them equal)
 * without building the view first, and with each writer's record-like object (about 1 KB, the
 * same few users on every record of a page) stringified once per object. ADR 0011.
 */

/** What is the same for every record of a page that shares its definitions: computed once. */
export interface RecordLayout {
  opts: ViewOptions;
  defs: readonly PropertyDefinition[];
  /**
   * The shown properties as [name, its JSON key text `"name":`], in the response's order, when
   * `properties` is a map of stored values; null when it is written by JSON.stringify (LEGACY,
   * display values, or names a map would put in another order).
   */
  keys: readonly (readonly [string, string])[] | null;
}

// A JS object lists array-index keys ("0", "12") first, in numeric order, whatever their
// insertion order: JSON.stringify of the view's map writes them so, and only it need do it.
const arrayIndex = (name: string) => /^(0|[1-9][0-9]*)$/.test(name) && Number(name) < 2 ** 32 - 1;

/** The layout of the records of `defs` answered with `opts` (`opts.fields` included). */
export function recordLayout(defs: readonly PropertyDefinition[], opts: ViewOptions): RecordLayout {
  const names = defs.map((d) => d.name).filter((n) => !opts.fields || opts.fields.has(n));
  const plain = opts.format !== 'LEGACY' && opts.parse === 'raw' && new Set(names).size === names.length && !names.some(arrayIndex);
  return { opts, defs, keys: plain ? names.map((n) => [n, `${JSON.stringify(n)}:`] as const) : null };
}

/** The record's view as the routes built it before (the reference the JSON text is held to). */
export const recordViewOf = (row: RecordViewRow, layout: RecordLayout, actors: Actors): RecordView => toRecordView(row, layout.opts, actors, layout.defs);

const written = new WeakMap<object, string>();

/**
 * The JSON text of an actor or a user object. Those of audit-fields.ts are frozen (deeply), so the
 * text of one is written once and kept with it; any other object is stringified each time.
 */
export function frozenJson(value: object | null): string {
  if (value === null) return 'null';
  let text = written.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    if (Object.isFrozen(value)) written.set(value, text);
  }
  return text;
}

function propertiesJson(vals: Record<string, unknown>, layout: RecordLayout): string {
  if (!layout.keys) return JSON.stringify(properties(vals, layout.defs, layout.opts));
  let out = '';
  for (const [name, key] of layout.keys) {
    // JSON.stringify leaves out a member whose value it cannot write (undefined, a function).
    const text = JSON.stringify(Object.hasOwn(vals, name) ? vals[name] : null) as string | undefined;
    if (text !== undefined) out += `${out ? ',' : ''}${key}${text}`;
  }
  return `{${out}}`;
}

const json = JSON.stringify;

/** One record's response (spec 2.2) as JSON text: `JSON.stringify(recordViewOf(row, layout, actors))`. */
export function recordJson(row: RecordViewRow, layout: RecordLayout, actors: Actors): string {
  const name = json(nameOf(row.vals, layout.defs));
  const relations = row.links && row.links.length > 0 ? json(relationsOf(row, layout.opts)) : '[]';
  return (
    `{"uuid":${json(row.uuid)},"name":${name},"label":${name},"object":${json(row.object_name)},` +
    `"objects":${json(row.object_names.map((o) => o.name))},"createdAt":${json(row.created_at)},"updatedAt":${json(row.updated_at)},` +
    `"deletedAt":${json(row.deleted_at)},"createdBy":${frozenJson(actors.actor(row.created_by))},` +
    `"updatedBy":${frozenJson(actors.actor(row.updated_by))},"deletedBy":${frozenJson(actors.actor(row.deleted_by))},` +
    `"index":${json(row.revision)},"revision":${json(row.revision)},"properties":${propertiesJson(row.vals, layout)},` +
    `"relations":${relations},"teams":${json(row.teams)},"user":${frozenJson(actors.member(row.user_uuid))}}`
  );
}

/** Records read for a response, with what writing them takes: their writers and each one's layout. */
export interface WrittenRecords {
  rows: readonly RecordViewRow[];
  actors: Actors;
  layoutOf(row: RecordViewRow): RecordLayout;
}

/** The records' JSON texts, in order. */
export const recordsJson = (records: WrittenRecords) => records.rows.map((r) => recordJson(r, records.layoutOf(r), records.actors));

/** The records' views, in order (what the JSON texts are the JSON of). */
export const recordsViews = (records: WrittenRecords) => records.rows.map((r) => recordViewOf(r, records.layoutOf(r), records.actors));
