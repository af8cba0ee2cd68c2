import { z } from 'zod';
import { feedFormats } from '../../aggregates/feed/feed.events.js';
import { filterItemSchema, sortItemSchema } from '../../aggregates/record-filter/filter.schema.js';
import { auditFields, auditFieldsOf, type Actors } from '../http/audit-fields.js';
import type { FeedRow } from '../../read-models/feeds.queries.js';

const field = z
  .object({
    key: z.string().min(1).max(200).describe('A property of the object, or uuid, createdAt, updatedAt'),
    as: z.string().min(1).max(64).describe('The output name: an RSS / Indeed element or a JSON Feed item field, else an extension field (docs/feeds.md)'),
  })
  .strict();

const httpUrl = z.string().max(2000).regex(/^https?:\/\/[^\s]+$/, 'an http(s) URL');

const fields = {
  name: z.string().min(1).max(200).optional(),
  title: z.string().min(1).max(200).optional().describe("The feed's title (default: its name)"),
  description: z.string().max(2000).optional(),
  homeUrl: httpUrl.nullable().optional().describe('The site the feed belongs to (RSS link, JSON Feed home_page_url, Indeed publisherurl)'),
  objectUuid: z.uuid().describe('The object whose records the feed lists'),
  filters: z.array(filterItemSchema).max(50).optional().describe('Filters of the records filter language (AND), as POST /{objectName}/index takes them'),
  sort: z.array(sortItemSchema).max(10).optional().describe('Default: createdAt ascending'),
  fields: z.array(field).min(1).max(50),
  format: z.enum(feedFormats).describe('json (JSON Feed 1.1), rss (RSS 2.0) or indeed (the Indeed job XML layout)'),
  enabled: z.boolean().optional().describe('Default true; a disabled feed answers 404 on its public URL'),
};

export const createFeedBodySchema = z.object(fields).strict().meta({ id: 'FeedCreate' });
export const updateFeedBodySchema = z
  .object({ ...fields, objectUuid: fields.objectUuid.optional(), fields: fields.fields.optional(), format: fields.format.optional() })
  .strict()
  .meta({ id: 'FeedUpdate' });

export const feedSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    title: z.string(),
    description: z.string(),
    homeUrl: z.string().nullable(),
    objectUuid: z.string(),
    objectName: z.string(),
    filters: z.array(z.object({ key: z.string(), operator: z.string(), value: z.unknown().optional() })),
    sort: z.array(z.object({ key: z.string(), direction: z.string() })),
    fields: z.array(z.object({ key: z.string(), as: z.string() })),
    format: z.enum(feedFormats),
    enabled: z.boolean(),
    ...auditFields,
  })
  .meta({ id: 'Feed' });

/** A feed with its public URL: answered once, by create and by rotate (the token is stored nowhere). */
export const feedWithUrlSchema = feedSchema.extend({ publicUrl: z.string().describe('The public path of the feed: keep it, it is shown only now') }).meta({ id: 'FeedWithUrl' });

export const FEED_PUBLIC_PREFIX = '/api/v2/feeds/public/';
export const publicFeedPath = (token: string) => `${FEED_PUBLIC_PREFIX}${token}`;

export const toFeed = (row: FeedRow, actors: Actors): z.infer<typeof feedSchema> => ({
  uuid: row.feed_uuid,
  name: row.name,
  title: row.title,
  description: row.description,
  homeUrl: row.home_url,
  objectUuid: row.object_uuid,
  objectName: row.object_name,
  filters: row.filters,
  sort: row.sort,
  fields: row.fields,
  format: row.format,
  enabled: row.enabled,
  ...auditFieldsOf(row, actors),
});
