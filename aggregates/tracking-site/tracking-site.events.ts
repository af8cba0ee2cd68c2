import { z } from 'zod';

export const trackingSiteKeyIssued = z.object({
  type: z.literal('TrackingSiteKeyIssued'),
  version: z.literal(1),
  /** The site key is public (it is in the company's pages), not a secret. */
  data: z.object({ siteKey: z.string(), rotated: z.boolean() }),
});

export const trackingSiteEventSchema = z.discriminatedUnion('type', [trackingSiteKeyIssued]);
export type TrackingSiteEvent = z.infer<typeof trackingSiteEventSchema>;
export const trackingSiteEventTypes = trackingSiteEventSchema.options.map((o) => o.shape.type.value);

/** A company's tracking site: one stream per company, in its tenant. */
export const TRACKING_SITE_STREAM_PREFIX = 'tracking-site-';
export const trackingSiteStream = (companyUuid: string) => `${TRACKING_SITE_STREAM_PREFIX}${companyUuid}`;
/** The company a tracking-site stream is named by (the inverse of `trackingSiteStream`). */
export const trackingSiteCompanyOfStream = (streamId: string) => streamId.slice(TRACKING_SITE_STREAM_PREFIX.length);
