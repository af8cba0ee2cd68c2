import { z } from 'zod';

const pair = z.object({ pageUuid: z.string().uuid(), otherUuid: z.string().uuid() });
export const pageTranslationLinked = z.object({ type: z.literal('PageTranslationLinked'), version: z.literal(1), data: pair });
export const pageTranslationUnlinked = z.object({ type: z.literal('PageTranslationUnlinked'), version: z.literal(1), data: pair });
export const pageTranslationEventSchema = z.discriminatedUnion('type', [pageTranslationLinked, pageTranslationUnlinked]);
export type PageTranslationEvent = z.infer<typeof pageTranslationEventSchema>;
export const pageTranslationEventTypes = pageTranslationEventSchema.options.map((o) => o.shape.type.value);

/** One stream per pair of pages, whichever way it was linked: a link and its unlink are ordered. */
export const TRANSLATION_STREAM_PREFIX = 'page-translation-';
export const translationStream = (a: string, b: string) => `${TRANSLATION_STREAM_PREFIX}${[a, b].sort().join('-')}`;
