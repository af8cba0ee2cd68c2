import { z } from 'zod';
import { pageDocumentSchema, resolvedOpSchema } from './page.document.js';

const uuid = z.string().uuid();

/**
 * Who may read a published page on the public routes: anyone (`none`), whoever sends the page's
 * password (`password`: only its scrypt hash is kept, never the password), or signed-in members
 * of the company (`members`).
 */
export const storedProtectionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('password'), passwordHash: z.string() }),
  z.object({ type: z.literal('members') }),
]);
export type StoredProtection = z.infer<typeof storedProtectionSchema>;

export const pageCreated = z.object({
  type: z.literal('PageCreated'),
  version: z.literal(1),
  data: z.object({
    pageUuid: uuid,
    recordUuid: uuid,
    objectUuid: uuid,
    objectName: z.string(),
    environment: z.string(),
    locale: z.string(),
    template: z.boolean(),
    document: pageDocumentSchema,
    protection: storedProtectionSchema,
  }),
});
/** One edit batch: the checked ops (refs resolved) and the document revision they made. */
export const pagePatched = z.object({ type: z.literal('PagePatched'), version: z.literal(1), data: z.object({ revision: z.number().int(), ops: z.array(resolvedOpSchema) }) });
/** A restore of history index `fromRevision`, as the new revision `revision`. */
export const pageRevisionRestored = z.object({
  type: z.literal('PageRevisionRestored'),
  version: z.literal(1),
  data: z.object({ revision: z.number().int(), fromRevision: z.number().int(), document: pageDocumentSchema }),
});
export const pageProtectionChanged = z.object({ type: z.literal('PageProtectionChanged'), version: z.literal(1), data: z.object({ protection: storedProtectionSchema }) });
/** Times are epoch seconds; `scheduled`: fired by the scheduler at its publishAt / unpublishAt. */
export const pagePublished = z.object({ type: z.literal('PagePublished'), version: z.literal(1), data: z.object({ at: z.number().int(), scheduled: z.boolean() }) });
export const pagePublishScheduled = z.object({ type: z.literal('PagePublishScheduled'), version: z.literal(1), data: z.object({ publishAt: z.number().int() }) });
export const pageUnpublished = z.object({ type: z.literal('PageUnpublished'), version: z.literal(1), data: z.object({ at: z.number().int(), scheduled: z.boolean() }) });
export const pageUnpublishScheduled = z.object({ type: z.literal('PageUnpublishScheduled'), version: z.literal(1), data: z.object({ unpublishAt: z.number().int() }) });

/** A template page (one per object, environment and locale) was created or changed: webhooks subscribe to it (spec 6.5). */
export const pageTemplateChanged = z.object({
  type: z.literal('PageTemplateChanged'),
  version: z.literal(1),
  data: z.object({ pageUuid: uuid, objectUuid: uuid, objectName: z.string(), environment: z.string(), locale: z.string(), revision: z.number().int() }),
});

export const pageEventSchema = z.discriminatedUnion('type', [
  pageTemplateChanged,
  pageCreated,
  pagePatched,
  pageRevisionRestored,
  pageProtectionChanged,
  pagePublished,
  pagePublishScheduled,
  pageUnpublished,
  pageUnpublishScheduled,
]);
export type PageEvent = z.infer<typeof pageEventSchema>;
export const pageEventTypes = pageEventSchema.options.map((o) => o.shape.type.value);
export const publicationEventTypes = ['PagePublished', 'PagePublishScheduled', 'PageUnpublished', 'PageUnpublishScheduled'] as const;
export type PublicationEvent = Extract<PageEvent, { type: (typeof publicationEventTypes)[number] }>;

export const PAGE_STREAM_PREFIX = 'page-';
export const pageStream = (pageUuid: string) => `${PAGE_STREAM_PREFIX}${pageUuid}`;
export const pageUuidOfStream = (streamId: string) => streamId.slice(PAGE_STREAM_PREFIX.length);
