import { z } from 'zod';
import { filterGroupSchema, filterItemSchema, sortItemSchema } from '../record-filter/filter.schema.js';

const uuid = z.string().uuid();

/** What a saved filter holds: the object it filters, spec 2.1 filters (AND) and 2.4 groups (OR of ANDs), a default sort. */
export const savedFilterBodySchema = z.object({
  name: z.string(),
  objectName: z.string(),
  filters: z.array(filterItemSchema),
  groups: z.array(filterGroupSchema),
  sort: z.array(sortItemSchema),
});
export type SavedFilterBody = z.infer<typeof savedFilterBodySchema>;

export const savedFilterCreated = z.object({ type: z.literal('SavedFilterCreated'), version: z.literal(1), data: savedFilterBodySchema.extend({ filterUuid: uuid }) });
export const savedFilterUpdated = z.object({ type: z.literal('SavedFilterUpdated'), version: z.literal(1), data: savedFilterBodySchema.partial() });
export const savedFilterDeleted = z.object({ type: z.literal('SavedFilterDeleted'), version: z.literal(1), data: z.object({ filterUuid: uuid }) });
export const savedFilterRestored = z.object({ type: z.literal('SavedFilterRestored'), version: z.literal(1), data: z.object({ filterUuid: uuid }) });

export const savedFilterEventSchema = z.discriminatedUnion('type', [savedFilterCreated, savedFilterUpdated, savedFilterDeleted, savedFilterRestored]);
export type SavedFilterEvent = z.infer<typeof savedFilterEventSchema>;
export const savedFilterEventTypes = savedFilterEventSchema.options.map((o) => o.shape.type.value);

export const SAVED_FILTER_STREAM_PREFIX = 'filter-';
export const savedFilterStream = (filterUuid: string) => `${SAVED_FILTER_STREAM_PREFIX}${filterUuid}`;
/** The filter uuid a saved-filter stream is named by (the inverse of `savedFilterStream`). */
export const savedFilterUuidOfStream = (streamId: string) => streamId.slice(SAVED_FILTER_STREAM_PREFIX.length);
