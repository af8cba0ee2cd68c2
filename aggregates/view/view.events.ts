import { z } from 'zod';
import { filterGroupSchema, filterItemSchema, sortItemSchema } from '../record-filter/filter.schema.js';

const uuid = z.string().uuid();

/** One visible column, in display order: a property (or system field) and its width in pixels (null: the console's default). */
export const viewColumnSchema = z.object({ key: z.string(), width: z.number().int().nullable() });
export type ViewColumn = z.infer<typeof viewColumnSchema>;

/** Who sees a view: its owner only, every member of the company, or the members of one team. */
export const viewSharings = ['personal', 'company', 'team'] as const;
export type ViewSharing = (typeof viewSharings)[number];

/** What a view holds: how to look at one object's records. */
export const viewSettingsSchema = z.object({
  name: z.string(),
  objectUuid: uuid,
  objectName: z.string(),
  columns: z.array(viewColumnSchema),
  filters: z.array(filterItemSchema),
  groups: z.array(filterGroupSchema),
  sort: z.array(sortItemSchema),
  pageSize: z.number().int(),
  groupBy: z.string().nullable(),
  sharing: z.enum(viewSharings),
  teamUuid: uuid.nullable(),
});
export type ViewSettings = z.infer<typeof viewSettingsSchema>;

export const viewCreated = z.object({ type: z.literal('ViewCreated'), version: z.literal(1), data: viewSettingsSchema.extend({ viewUuid: uuid, ownerUuid: uuid.nullable() }) });
export const viewUpdated = z.object({ type: z.literal('ViewUpdated'), version: z.literal(1), data: z.object({ changes: viewSettingsSchema.partial() }) });
export const viewDeleted = z.object({ type: z.literal('ViewDeleted'), version: z.literal(1), data: z.object({ viewUuid: uuid }) });
export const viewRestored = z.object({ type: z.literal('ViewRestored'), version: z.literal(1), data: z.object({ viewUuid: uuid }) });

export const viewEventSchema = z.discriminatedUnion('type', [viewCreated, viewUpdated, viewDeleted, viewRestored]);
export type ViewEvent = z.infer<typeof viewEventSchema>;
export const viewEventTypes = viewEventSchema.options.map((o) => o.shape.type.value);

export const VIEW_STREAM_PREFIX = 'view-';
export const viewStream = (viewUuid: string) => `${VIEW_STREAM_PREFIX}${viewUuid}`;
/** The uuid a view stream is named by (the inverse of `viewStream`). */
export const viewUuidOfStream = (streamId: string) => streamId.slice(VIEW_STREAM_PREFIX.length);
