import { z } from 'zod';

const uuid = z.string().uuid();

/** The three layouts a feed is written in (docs/feeds.md): JSON Feed 1.1, RSS 2.0, the Indeed job-board XML. */
export const feedFormats = ['json', 'rss', 'indeed'] as const;
export type FeedFormat = (typeof feedFormats)[number];

/** One exposed field: the record's `key` (a property name, or uuid / createdAt / updatedAt) written as `as`. */
export const feedFieldSchema = z.object({ key: z.string(), as: z.string() });
export type FeedField = z.infer<typeof feedFieldSchema>;

/** A filter and a sort in the records filter language (aggregates/record-filter/), kept as sent. */
export const feedFilterSchema = z.object({ key: z.string(), operator: z.string(), value: z.unknown().optional() });
export const feedSortSchema = z.object({ key: z.string(), direction: z.enum(['asc', 'desc']) });

export const feedSettingsSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  homeUrl: z.string().nullable(),
  objectUuid: uuid,
  objectName: z.string(),
  filters: z.array(feedFilterSchema),
  sort: z.array(feedSortSchema),
  fields: z.array(feedFieldSchema),
  format: z.enum(feedFormats),
  enabled: z.boolean(),
});
export type FeedSettings = z.infer<typeof feedSettingsSchema>;

/** `tokenHash`: the SHA-256 of the public token (hex); the token itself is never stored nor logged. */
export const feedCreated = z.object({ type: z.literal('FeedCreated'), version: z.literal(1), data: feedSettingsSchema.extend({ feedUuid: uuid, tokenHash: z.string() }) });
export const feedUpdated = z.object({ type: z.literal('FeedUpdated'), version: z.literal(1), data: z.object({ changes: feedSettingsSchema.partial() }) });
export const feedTokenRotated = z.object({ type: z.literal('FeedTokenRotated'), version: z.literal(1), data: z.object({ feedUuid: uuid, tokenHash: z.string() }) });
export const feedDeleted = z.object({ type: z.literal('FeedDeleted'), version: z.literal(1), data: z.object({ feedUuid: uuid }) });
export const feedRestored = z.object({ type: z.literal('FeedRestored'), version: z.literal(1), data: z.object({ feedUuid: uuid }) });

export const feedEventSchema = z.discriminatedUnion('type', [feedCreated, feedUpdated, feedTokenRotated, feedDeleted, feedRestored]);
export type FeedEvent = z.infer<typeof feedEventSchema>;
export const feedEventTypes = feedEventSchema.options.map((o) => o.shape.type.value);

export const FEED_STREAM_PREFIX = 'feed-';
export const feedStream = (feedUuid: string) => `${FEED_STREAM_PREFIX}${feedUuid}`;
/** The uuid a feed stream is named by (the inverse of `feedStream`). */
export const feedUuidOfStream = (streamId: string) => streamId.slice(FEED_STREAM_PREFIX.length);
