import { z } from 'zod';
import { filterGroupSchema, filterItemSchema, sortItemSchema } from '../../aggregates/record-filter/filter.schema.js';
import { MAX_COLUMNS } from '../../aggregates/view/view.decider.js';
import { viewSharings } from '../../aggregates/view/view.events.js';
import type { ViewRow } from '../../read-models/views.queries.js';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';

const column = z
  .object({
    key: z.string().min(1).max(200).describe('A property, a system field (uuid, createdAt, ...) or <relation>.<property>'),
    width: z.number().int().nullable().optional().describe('Pixels (20 to 4000); null or left out: the default width'),
  })
  .strict();

const fields = {
  name: z.string().min(1).max(200),
  objectUuid: z.uuid().describe('The object whose records the view shows (fixed once created)'),
  columns: z.array(column).max(MAX_COLUMNS).optional().describe('The visible columns in display order; default: every property of the object'),
  filters: z.array(filterItemSchema).max(50).optional().describe("The records' filters (spec 2.1), AND: checked as POST /{object}/index checks them"),
  groups: z.array(filterGroupSchema).max(20).optional().describe('Filter groups (spec 2.4): OR of groups, AND inside a group'),
  sort: z.array(sortItemSchema).max(10).optional(),
  pageSize: z.number().int().optional().describe('Records per page, 1 to 100 (default 25)'),
  groupBy: z.string().max(200).nullable().optional().describe('A select property to group the records by; null: no grouping'),
  sharing: z.enum(viewSharings).optional().describe('personal (default): only you; company: every member; team: the members of teamUuid. Sharing needs views:share'),
  teamUuid: z.uuid().nullable().optional().describe('With sharing: team'),
};

export const createViewBodySchema = z.object(fields).strict().meta({ id: 'ViewCreate' });
export const updateViewBodySchema = z
  .object({ ...fields, name: fields.name.optional() })
  .omit({ objectUuid: true })
  .strict()
  .meta({ id: 'ViewUpdate' });

export const viewSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    objectUuid: z.string(),
    objectName: z.string(),
    columns: z.array(z.object({ key: z.string(), width: z.number().int().nullable() })),
    filters: z.array(z.unknown()),
    groups: z.array(z.unknown()),
    sort: z.array(z.object({ key: z.string(), direction: z.string() })),
    pageSize: z.number().int(),
    groupBy: z.string().nullable(),
    sharing: z.enum(viewSharings),
    teamUuid: z.string().nullable(),
    ownerUuid: z.string().nullable(),
    ...auditFields,
  })
  .meta({ id: 'View' });

export const toView = (row: ViewRow, actors: Actors): z.infer<typeof viewSchema> => ({
  uuid: row.view_uuid,
  name: row.name,
  objectUuid: row.object_uuid,
  objectName: row.object_name,
  columns: row.columns,
  filters: row.filters,
  groups: row.groups,
  sort: row.sort,
  pageSize: row.page_size,
  groupBy: row.group_by,
  sharing: row.sharing,
  teamUuid: row.team_uuid,
  ownerUuid: row.owner_uuid,
  ...auditFieldsOf(row, actors),
});
