import { z } from 'zod';

const path = z
  .string()
  .min(1)
  .max(500)
  .regex(/^\//, 'a path starts with /')
  .describe('The page path; a query string or fragment is cut off and not kept');

export const trackedEventSchema = z.object({
  eventId: z.uuid().describe("The sender's id of the event: an event id the company has already is counted once"),
  type: z.enum(['pageview', 'event']),
  name: z.string().max(100).default('').describe('The custom event name (type event)'),
  path,
  referrer: z.string().max(500).default('').describe('The referring page; only its origin is kept'),
});

export const MAX_EVENTS_PER_BATCH = 100;

export const collectBody = z
  .object({
    siteKey: z.string().min(8).max(64).regex(/^[A-Za-z0-9_-]+$/).optional().describe('The public site key (or the x-site-key header)'),
    batchId: z.uuid(),
    events: z.array(trackedEventSchema).min(1).max(MAX_EVENTS_PER_BATCH),
  })
  .meta({ id: 'TrackingBatch' });

export const collectAnswer = z
  .object({
    received: z.number().int(),
    kept: z.boolean().describe('false: nothing was kept (do-not-track or a bot)'),
  })
  .meta({ id: 'TrackingReceipt' });

const dayCount = z.object({ day: z.string().describe('YYYY-MM-DD (UTC)'), views: z.number().int(), events: z.number().int(), visitors: z.number().int().describe('Unique visitors of the day') });
export const statsSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    days: z.array(dayCount).describe('The whole site, per day'),
    pages: z.array(z.object({ path: z.string(), views: z.number().int(), events: z.number().int(), visitors: z.number().int().describe('Unique visitors summed over the days (visitor-days)') })).describe('The top 20 pages of the range by views'),
  })
  .meta({ id: 'TrackingStats' });

export const statsQuery = z.object({
  from: z.iso.date().optional().describe('First day (UTC), default 29 days before `to`'),
  to: z.iso.date().optional().describe('Last day (UTC), default today'),
});

export const siteKeySchema = z.object({ siteKey: z.string().nullable() }).meta({ id: 'TrackingSiteKey' });

/** The path without its query string and fragment (they may hold personal data). */
export const cleanPath = (p: string) => p.split(/[?#]/, 1)[0] || '/';

/** Only the origin of a referrer. */
export function cleanReferrer(r: string): string {
  if (!r) return '';
  try {
    const u = new URL(r);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : '';
  } catch {
    return '';
  }
}
