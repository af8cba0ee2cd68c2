import { z } from 'zod';
import { limitField, pageField } from '../kernel/paging.js';

/**
 * The record filter language: the closed operator set, the filter shapes of spec 2.1 (pagination
 * `filters`) and 2.4 (`{groups: [{items}]}`, an OR of ANDs), sort keys and the record index
 * request. Pure: the webhooks, syncs and the SQL index engine all read the same shapes.
 */
export const filterOperators = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'in',
  'notIn',
  'isnull',
  'isnotnull',
  'isempty',
  'isnotempty',
] as const;
export type FilterOperator = (typeof filterOperators)[number];

/** Operators that take no value. */
export const valuelessOperators: readonly FilterOperator[] = ['isnull', 'isnotnull', 'isempty', 'isnotempty'];

/**
 * Every negative operator is the exact complement of a positive one (a record matches
 * `notEquals x` exactly when it does not match `equals x`, so a missing value matches it).
 */
export const complementOf: Partial<Record<FilterOperator, FilterOperator>> = {
  notEquals: 'equals',
  notContains: 'contains',
  notIn: 'in',
  isnull: 'isnotnull',
  isempty: 'isnotempty',
};

const byFolded = new Map(filterOperators.map((op) => [op.toLowerCase(), op]));

/**
 * The operator a client spelled: case, `_` and `-` do not matter, so the spec's `EQUALS`,
 * `NOT_EQUALS`, `IS_NULL` and `notEquals` all name the same operator. Undefined when unknown.
 */
export function normaliseOperator(raw: string): FilterOperator | undefined {
  return byFolded.get(raw.replace(/[_\-\s]/g, '').toLowerCase());
}

const operatorSchema = z
  .preprocess((v) => (typeof v === 'string' ? (normaliseOperator(v) ?? v) : v), z.enum(filterOperators))
  .describe(`One of ${filterOperators.join(', ')} (case, "_" and "-" are ignored: EQUALS and NOT_EQUALS work too)`);

/** A key: a property name, a system field, `properties.<name>`, or `<relation>.<property>`. */
const keySchema = z.string().min(1).max(200);

/** One filter of spec 2.1: `{key, operator, value}`; `value` is left out for isnull and friends. */
export const filterItemSchema = z
  .object({ key: keySchema, operator: operatorSchema, value: z.unknown().optional() })
  .strict()
  .meta({ id: 'RecordFilter' });
export type FilterItem = z.infer<typeof filterItemSchema>;

/**
 * A filter item of spec 2.4. `property` names the field (or use `key`); with `relation` it names a
 * property of the records connected through that relation. The display hints (smartContent,
 * relationIncluded, edgeProperty) are accepted and ignored.
 */
export const filterGroupItemSchema = z
  .object({
    object: z.string().max(200).optional(),
    relation: z.string().max(200).nullable().optional(),
    relationDirection: z.string().max(40).nullable().optional(),
    property: keySchema.optional(),
    key: keySchema.optional(),
    relationIncluded: z.boolean().optional(),
    operator: operatorSchema,
    value: z.unknown().optional(),
    smartContent: z.boolean().optional(),
    edgeProperty: z.boolean().optional(),
  })
  .strict()
  .refine((i) => i.property !== undefined || i.key !== undefined, { message: 'a filter item needs property (or key)', path: ['property'] })
  .meta({ id: 'RecordFilterItem' });
export type FilterGroupItem = z.infer<typeof filterGroupItemSchema>;

export const filterGroupSchema = z.object({ items: z.array(filterGroupItemSchema).max(50) }).strict();

/** `{groups: [{items: [...]}, ...]}`: a record matches when every item of at least one group matches. */
export const filterGroupsSchema = z.object({ groups: z.array(filterGroupSchema).max(20) }).strict().meta({ id: 'RecordFilterGroups' });
export type FilterGroups = z.infer<typeof filterGroupsSchema>;

export const sortItemSchema = z
  .object({
    key: keySchema,
    direction: z
      .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['asc', 'desc']))
      .default('asc'),
  })
  .strict();
export type SortItem = z.infer<typeof sortItemSchema>;

export { DEFAULT_LIMIT, MAX_LIMIT } from '../kernel/paging.js';

/** Which records an index request looks at, by archive state. Default: the live ones. */
export const archivedModes = ['exclude', 'include', 'only'] as const;
export type ArchivedMode = (typeof archivedModes)[number];

/**
 * The body of `POST /api/v2/{objectName}/index`: spec 2.1's pagination request plus filter groups
 * (2.4), a saved filter and the archive switch. `filters` AND together; `groups` is an OR of ANDs;
 * the saved filter's conditions AND with both. Pages count from 0; `limit` defaults to 25 and is
 * at most 100 (a larger limit is a 400: aggregates/kernel/paging.ts).
 */
export const recordIndexRequestSchema = z
  .object({
    filters: z.array(filterItemSchema).max(50).default([]),
    groups: z.array(filterGroupSchema).max(20).optional().describe('Filter groups (spec 2.4): OR of groups, AND inside a group'),
    filter: filterGroupsSchema.optional().describe('The same groups in the webhook / saved-filter shape {groups: [...]}'),
    savedFilter: z.string().uuid().optional().describe('Applies the saved filter with this uuid (AND with the rest)'),
    sort: z.array(sortItemSchema).max(10).default([]),
    show: z.array(keySchema).max(200).optional(),
    limit: limitField,
    page: pageField,
    query: z.string().max(500).optional().describe('Free-text search over the text properties, ranked'),
    archived: z.enum(archivedModes).default('exclude').describe('exclude (default) | include | only: archived (soft-deleted) records'),
  })
  .strict()
  .meta({ id: 'RecordIndexRequest' });
export type RecordIndexRequest = z.infer<typeof recordIndexRequestSchema>;
export type RecordIndexRequestInput = z.input<typeof recordIndexRequestSchema>;
